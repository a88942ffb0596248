import { LEAD_STATUSES } from '../src/leads/lead.model.js';
import { ORDER_STATUSES } from '../src/orders/order.model.js';
import { SEARCH_COUNT_LIMIT } from '../src/query.js';

/**
 * The answers' JSON Schemas (the requests' come from the Joi schemas the services validate with). Our answers are
 * closed: every field is listed and required (a null stands for "none"), and no other field may appear, so the
 * suite's validation of every answer (test/openapi-contract.ts) fails on a field the document does not name.
 */
export type Schema = Record<string, unknown>;

/** An object with exactly these fields, all present unless `optional` names them. */
export const closed = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});

export const str = { type: 'string' };
export const int = { type: 'integer' };
export const nullable = (type: string, extra: Schema = {}): Schema => ({ type: [type, 'null'], ...extra });
export const time = { type: 'string', format: 'date-time' };
export const nullableTime = nullable('string', { format: 'date-time' });
export const count = { type: 'integer', minimum: 0 };
const leadRef = { type: 'string', description: 'Lead reference: LD and 10 characters', examples: ['LD7K2M9QX4TB'] };
const orderRef = { type: 'string', description: 'Order reference: OR and 10 characters', examples: ['ORH3W8ZC2N5P'] };
export const refs = { lead: leadRef, order: orderRef };

/** `{ message, …fields }`: the answers of writes. */
export const withMessage = (properties: Record<string, Schema> = {}) => closed({ message: str, ...properties });

export const leadStatus = { type: 'string', enum: [...LEAD_STATUSES] };
export const orderStatus = { type: 'string', enum: [...ORDER_STATUSES] };

const pageUrl = { type: 'string', format: 'uri' };
/** The Laravel paginator around a list's items. */
export const envelope = (item: Schema): Schema =>
  closed({
    data: { type: 'array', items: item },
    links: closed({ first: pageUrl, last: pageUrl, prev: nullable('string'), next: nullable('string') }),
    meta: closed({
      current_page: { type: 'integer', minimum: 1 },
      from: nullable('integer', { description: 'Position of the first item of the page; null when it is empty' }),
      last_page: { type: 'integer', minimum: 1 },
      path: pageUrl,
      per_page: { type: 'integer', minimum: 1, maximum: 100 },
      to: nullable('integer'),
      total: {
        type: 'integer',
        minimum: 0,
        description:
          'Exact when the list is filtered by nothing but the account and the status (kept as counters, not ' +
          `counted per request). With any other filter (search_by / keyWord, a history's reference or since), ` +
          `rows are counted up to ${SEARCH_COUNT_LIMIT.toLocaleString('en')} past the first row of the requested ` +
          'page; when more match, `total` is that bound (the offset of the page + ' +
          `${SEARCH_COUNT_LIMIT.toLocaleString('en')}), \`total_exact\` is false and \`last_page\` / ` +
          '`links.next` follow it.',
      },
      total_exact: { type: 'boolean', description: 'False when `total` is the bound described under `total`.' },
    }),
  });

export const productLine = closed(
  {
    sku: str,
    name: str,
    quantity: { type: 'integer', minimum: 1, maximum: 999 },
    price: { type: 'number', description: 'Price per unit' },
    available: {
      type: ['integer', 'null'],
      description:
        'In a show: units left in stock (on_hand − reserved; docs/stock.md) in the order\u2019s warehouse, or the ' +
        'account\u2019s default one for a lead; null when the sku is no active product',
    },
  },
  ['available'],
);
export const dataPair = closed({ key: str, value: str });

export const leadListItem = closed({
  reference: leadRef,
  full_name: str,
  phone: { type: 'string', description: 'As typed (7 to 100 characters)' },
  city: nullable('string'),
  status: leadStatus,
  created_at: time,
});

const historyFields = (ref: 'lead_reference' | 'order_reference') => ({
  [ref]: ref === 'lead_reference' ? leadRef : orderRef,
  old_status: nullable('string', { description: 'null on the entry of the creation' }),
  new_status: str,
  changed_by: { type: 'string', description: 'The actor: a user, "token name (owner)", a carrier or system' },
  changed_at: time,
});
export const historyItem = (ref: 'lead_reference' | 'order_reference') => closed(historyFields(ref));

/** The customer record of a phone (src/customers/customer.repository.ts), or null: docs/api.md "Customer". */
export const customer: Schema = {
  ...closed({
    phone: { type: 'string', description: 'E.164' },
    leads: count,
    confirmed: count,
    orders: count,
    delivered: count,
    returned: count,
    canceled: count,
    delivery_rate: nullable('integer', {
      minimum: 0,
      maximum: 100,
      description: 'Delivered of delivered + returned orders, in whole per cent; null before any of them',
    }),
    last_order: {
      type: ['object', 'null'],
      properties: { reference: orderRef, status: orderStatus, at: time },
      required: ['reference', 'status', 'at'],
      additionalProperties: false,
    },
    first_seen_at: nullableTime,
    last_seen_at: nullableTime,
    city: nullable('string', { description: 'The city of its latest lead (of its latest order without a lead)' }),
    risky: { type: 'boolean' },
    risk_reason: nullable('string', { description: "Why it is risky, in words, by the account's thresholds" }),
    risk_findings: {
      type: 'array',
      description: 'The risk rule conditions that hold, as data (returns first), for words in another language',
      items: {
        oneOf: [
          closed({ kind: { type: 'string', enum: ['returns'] }, returned: count, limit: count }),
          closed({
            kind: { type: 'string', enum: ['delivery'] },
            delivered: count,
            finished: count,
            rate: { type: 'integer', minimum: 0, maximum: 100 },
            limit: { type: 'integer', minimum: 0, maximum: 100 },
          }),
        ],
      },
    },
    blocked: { type: 'boolean', description: "On the account's blocklist" },
    block_reason: nullable('string'),
  }),
  type: ['object', 'null'],
  description:
    "What the account knows of the phone's owner: every lead and order of the same E.164 phone. Null for a " +
    'phone without an E.164 form.',
};

const leadShowFields = {
  ...(leadListItem.properties as Record<string, Schema>),
  area: nullable('string'),
  address: nullable('string'),
  action_date: nullableTime,
  updated_at: time,
  data: { type: 'array', items: dataPair },
  products: { type: 'array', items: productLine },
  total: { type: 'number', description: 'Sum of quantity × price' },
  order_reference: nullable('string', { description: 'The order its confirmation created, if any' }),
  history: {
    type: 'array',
    description: 'Status changes, oldest first',
    items: closed({ ...historyFields('lead_reference'), note: nullable('string') }),
  },
  customer,
  source: {
    ...nullable('object'),
    properties: { id: int, kind: { type: 'string', enum: ['form', 'shopify', 'woocommerce'] }, name: str },
    required: ['id', 'kind', 'name'],
    additionalProperties: false,
    description: 'The lead source it came from (a form or a shop); null otherwise',
  },
  utm: {
    ...nullable('object'),
    additionalProperties: str,
    description: 'utm_source, utm_medium, utm_campaign, utm_term, utm_content as received',
  },
};
/** GET /leads/{reference}/show's `data`. */
export const leadShow = closed(leadShowFields);
/** The work queue's lead: the show's fields, with `claim_expires_at` when `next` hands it out. */
export const claimedLead = closed({ ...leadShowFields, claim_expires_at: time });

const pushState = {
  type: ['string', 'null'],
  enum: ['queued', 'sending', 'sent', 'failed', null],
  description: 'Where its push to the shipping company is; null before any push',
};
export const orderListItem = closed({
  reference: orderRef,
  lead_reference: nullable('string', {
    description: 'The lead it was confirmed from; null for orders created over REST',
  }),
  full_name: str,
  phone: str,
  city: nullable('string'),
  status: orderStatus,
  total: { type: 'number' },
  tracking_number: nullable('string'),
  last_push_error: nullable('string'),
  created_at: time,
});
export const orderShow = closed({
  reference: orderRef,
  lead_reference: nullable('string'),
  full_name: str,
  phone: str,
  city: nullable('string'),
  area: nullable('string'),
  address: nullable('string'),
  data: { type: 'array', items: dataPair },
  status: orderStatus,
  total: { type: 'number' },
  products: { type: 'array', items: productLine },
  shipping_company: nullable('string', { description: 'Code of the company it was pushed to' }),
  tracking_number: nullable('string'),
  pushed_at: nullableTime,
  push_state: pushState,
  push_attempts: count,
  last_push_error: nullable('string'),
  created_at: time,
  updated_at: time,
  history: { type: 'array', description: 'Status changes, oldest first', items: historyItem('order_reference') },
});
