import Joi from 'joi';
import {
  createBodySchema,
  deleteBodySchema,
  leadItemSchema,
  restListQuerySchema,
  updateBodySchema,
} from '../src/leads/lead.schemas.js';
import {
  orderItemSchema,
  orderListQuerySchema,
  orderUpdateBodySchema,
  pushBodySchema,
} from '../src/orders/order.schemas.js';
import { pageKeys } from '../src/pagination.js';
import { isoDate } from '../src/validation.js';
import { BLOCKLIST_OPERATIONS } from './openapi-blocklist.js';
import { STOCK_OPERATIONS } from './openapi-stock.js';
import { CASH_OPERATIONS } from './openapi-cash.js';
import { SOURCE_OPERATIONS } from './openapi-sources.js';
import { QUEUE_OPERATIONS } from './openapi-queue.js';
import { WEBHOOK_OPERATIONS } from './openapi-webhooks.js';
import type { Operation } from './openapi-operation.js';

export type { Operation } from './openapi-operation.js';
import {
  closed,
  envelope,
  historyItem,
  leadListItem,
  leadShow,
  orderListItem,
  orderShow,
  refs,
  withMessage,
  type Schema,
} from './openapi-schemas.js';

const orderBody = createBodySchema('orders').keys({
  orders: Joi.array().min(1).max(1000).items(orderItemSchema).required(),
});

const historyQuery = (ref: string) => Joi.object({ ...pageKeys, [ref]: Joi.string().max(12), since: isoDate() });
const one = (item: Schema) => closed({ data: item });
const notFound = { 404: 'Unknown reference (another account\u2019s is unknown too)' };
/** A product or city the batch names was deleted while it was written (a race): nothing was written. */
const parentGone = {
  409: {
    description: 'A product the items name was removed meanwhile: nothing was written, send again',
    message: 'A product these leads refer to no longer exists; nothing was written.',
  },
};
/** The bulk creates: parentGone, or (within an instant of a key's 24 h expiry) its request still running. */
const createRefusals = {
  409: {
    description:
      'A product the items name was removed meanwhile, or a request with the same Idempotency-Key could not be ' +
      'replayed: nothing was written, send again',
    message: parentGone[409].message,
  },
};

const created = (ref: Schema) =>
  withMessage({ references: { type: 'array', items: ref, description: 'In request order' } });
const counted = (key: 'updated' | 'deleted') => withMessage({ [key]: { type: 'integer', minimum: 0 } });

/** Every REST operation behind a bearer token, in the order the document lists them. */
export const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/leads',
    summary: 'Bulk create leads (atomic, at most 1,000)',
    description:
      'Each sku must be an active product of the account, or the whole request is refused (422) and nothing is ' +
      "written; the message names the sku: `Sku 'X' does not exist.`, `Sku 'X' belongs to an inactive product.`, " +
      "or, for another case of an existing sku (skus are case-sensitive), `Sku 'abc-1' does not exist; did you " +
      "mean 'ABC-1'?`. A phone already used in the account in the last 30 days makes the lead `duplicate`; a phone " +
      'that is not a possible number is stored as typed and the lead is `wrong`.',
    scope: 'CREATE LEADS',
    body: createBodySchema('leads').keys({ leads: Joi.array().min(1).max(1000).items(leadItemSchema).required() }),
    success: { status: 201, description: 'Created: the new references, in request order', schema: created(refs.lead) },
    errors: createRefusals,
    idempotent: true,
  },
  {
    method: 'get',
    path: '/leads',
    summary: 'List leads, newest first',
    description:
      '`keyWord` matches a reference exactly, a phone by digits contained, a name or city case-insensitively ' +
      'contained; `search_by` says which field (default reference).',
    scope: 'VIEW LEADS',
    query: restListQuerySchema,
    success: { status: 200, description: 'A page of leads', schema: envelope(leadListItem) },
  },
  {
    method: 'get',
    path: '/leads/{reference}/show',
    summary: 'Show one lead with products, data, order reference and history',
    scope: 'VIEW LEADS',
    params: ['reference'],
    success: { status: 200, description: 'The lead', schema: one(leadShow) },
    errors: notFound,
  },
  {
    method: 'put',
    path: '/leads',
    summary: 'Bulk update lead statuses (atomic, at most 1,000)',
    description:
      'Any status may move to any other (another is refused naming it and the allowed ones: `The leads.0.status ' +
      "'xyz' is not one of: new, confirmed, …`); `action_date` is required for `call_later` and must be ahead " +
      '(`Y-m-d\\TH:i:sP`, any ISO 8601 offset: `+01:00`, `+0100`, `+01` or `Z`, as toISOString() gives; a time ' +
      "that has passed is 422 `The leads.N.action_date '…' is in the past: a call-back must be after now.`). " +
      'Moving a lead to `confirmed` creates its order, once: `orders` lists the orders this request created, one ' +
      'per lead (a lead confirmed before, or whose order an earlier confirmation made, is not listed: its order is ' +
      'the `order_reference` of GET /leads/{reference}/show). A lead without products cannot be confirmed: 422 ' +
      'under `leads.N.status`, and the whole request is refused.',
    scope: 'UPDATE LEADS',
    body: updateBodySchema,
    success: {
      status: 200,
      description: 'Updated',
      schema: withMessage({
        updated: { type: 'integer', minimum: 0 },
        orders: {
          type: 'array',
          description: 'The orders this request created by confirming leads, in request order',
          items: closed({ reference: refs.lead, order_reference: refs.order }),
        },
      }),
    },
  },
  {
    method: 'delete',
    path: '/leads',
    summary: 'Bulk delete leads with their history (confirmed leads are protected)',
    description:
      'Body `{"references": [...]}` (1 to 1,000). A confirmed lead in the list refuses the whole request (422).',
    scope: 'DELETE LEADS',
    body: deleteBodySchema,
    success: { status: 200, description: 'Deleted', schema: counted('deleted') },
  },
  {
    method: 'post',
    path: '/orders',
    summary: 'Bulk create orders (atomic, at most 1,000; same item rules as leads)',
    scope: 'CREATE ORDERS',
    body: orderBody,
    success: { status: 201, description: 'Created: the new references, in request order', schema: created(refs.order) },
    errors: createRefusals,
    idempotent: true,
  },
  {
    method: 'get',
    path: '/orders',
    summary: 'List orders, newest first (search_by adds tracking_number; status filter)',
    scope: 'VIEW ORDERS',
    query: orderListQuerySchema,
    success: { status: 200, description: 'A page of orders', schema: envelope(orderListItem) },
  },
  {
    method: 'get',
    path: '/orders/{reference}/show',
    summary: 'Show one order with products, shipping state and history',
    scope: 'VIEW ORDERS',
    params: ['reference'],
    success: { status: 200, description: 'The order', schema: one(orderShow) },
    errors: notFound,
  },
  {
    method: 'put',
    path: '/orders',
    summary: 'Bulk update order statuses under the transition rules (atomic)',
    description:
      'Moves: new → pushed → shipped → delivered | returned; new | pushed → canceled; pushed → new. Any other ' +
      'move is a 422 naming the reference and the move.',
    scope: 'UPDATE ORDERS',
    body: orderUpdateBodySchema('reference'),
    success: { status: 200, description: 'Updated', schema: counted('updated') },
  },
  {
    method: 'delete',
    path: '/orders',
    summary: 'Bulk delete new or canceled orders',
    description: 'Body `{"references": [...]}`; an order in any other status refuses the whole request (422).',
    scope: 'DELETE ORDERS',
    body: deleteBodySchema,
    success: { status: 200, description: 'Deleted', schema: counted('deleted') },
  },
  {
    method: 'post',
    path: '/orders/push',
    summary: 'Queue new orders for a shipping company (URGENT job)',
    description:
      'Each order is sent once (`X-Idempotency-Key` = its reference); orders already queued, being sent or sent ' +
      'are skipped. The carrier answers with a tracking number and the order moves to `pushed`. An order of total 0 ' +
      '(nothing to collect) is never pushed: 422 under `references.N`, and nothing is queued.',
    scope: 'UPDATE ORDERS',
    body: pushBodySchema('references'),
    success: {
      status: 202,
      description: 'Queued',
      schema: withMessage({ queued: { type: 'integer', minimum: 0 }, skipped: { type: 'integer', minimum: 0 } }),
    },
  },
  {
    method: 'get',
    path: '/lead-histories',
    summary: 'Lead status changes, newest first (poll with since)',
    scope: 'VIEW LEADS',
    query: historyQuery('lead_reference'),
    success: { status: 200, description: 'A page of history entries', schema: envelope(historyItem('lead_reference')) },
  },
  {
    method: 'get',
    path: '/order-histories',
    summary: 'Order status changes, newest first (poll with since)',
    scope: 'VIEW ORDERS',
    query: historyQuery('order_reference'),
    success: {
      status: 200,
      description: 'A page of history entries',
      schema: envelope(historyItem('order_reference')),
    },
  },
  ...QUEUE_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...BLOCKLIST_OPERATIONS,
  ...STOCK_OPERATIONS,
  ...CASH_OPERATIONS,
  ...SOURCE_OPERATIONS,
];
