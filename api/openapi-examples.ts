/**
 * One example request and answer per operation, keyed `<method> <path>` as the document lists them. The suite
 * checks each request against the Joi schema the service validates with and each answer against the operation's
 * answer schema (test/unit/openapi-document.test.ts), so an example cannot drift from what the API does.
 */
export interface Example {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  response: unknown;
}

const LEAD = 'LD7K2M9QX4TB';
const LEAD2 = 'LD9F4R2W8JQA';
const ORDER = 'ORH3W8ZC2N5P';
const AT = '2026-11-30T09:15:00.000Z';
const BASE = 'https://leadflow.example/api/web/1.0';

export const EXAMPLE_REFS = { LEAD, LEAD2, ORDER, AT };

/** The paginator around `items`, as page 1 of one page with `query` in its links. */
export function page(path: string, items: unknown[], query = 'per_page=15') {
  const url = `${BASE}${path}`;
  return {
    data: items,
    links: { first: `${url}?${query}&page=1`, last: `${url}?${query}&page=1`, prev: null, next: null },
    meta: {
      current_page: 1,
      from: items.length ? 1 : null,
      last_page: 1,
      path: url,
      per_page: 15,
      to: items.length ? items.length : null,
      total: items.length,
      total_exact: true,
    },
  };
}

const product = { sku: 'SERUM-01', quantity: 2, price: 199 };
const newLead = {
  phone: '0612345678',
  full_name: 'Amina Benali',
  city: 'Casablanca',
  area: 'Maarif',
  address: '12 rue Ibnou Mounir',
  data: [{ key: 'utm_source', value: 'facebook' }],
  products: [product],
};
const listed = { reference: LEAD, full_name: 'Amina Benali', phone: '0612345678', city: 'Casablanca' };
const line = { sku: 'SERUM-01', name: 'Argan serum 50 ml', quantity: 2, price: 199 };
const leadHistory = (old: string | null, status: string, by: string, note: string | null = null) => ({
  lead_reference: LEAD,
  old_status: old,
  new_status: status,
  changed_by: by,
  changed_at: AT,
  note,
});
export const shownLead = {
  ...listed,
  status: 'call_later',
  created_at: AT,
  area: 'Maarif',
  address: '12 rue Ibnou Mounir',
  action_date: '2026-12-01T13:30:00.000Z',
  updated_at: AT,
  data: [{ key: 'utm_source', value: 'facebook' }],
  products: [line],
  total: 398,
  order_reference: null,
  history: [leadHistory(null, 'new', 'Shop sync (Sara Idrissi)'), leadHistory('new', 'call_later', 'Karim (agent)')],
  customer: {
    phone: '+212612345678',
    leads: 4,
    confirmed: 3,
    orders: 3,
    delivered: 1,
    returned: 2,
    canceled: 0,
    delivery_rate: 33,
    last_order: { reference: ORDER, status: 'returned', at: '2026-11-20T10:00:00.000Z' },
    first_seen_at: '2026-09-02T08:15:00.000Z',
    last_seen_at: AT,
    city: 'Casablanca',
    risky: true,
    risk_reason: '2 parcels returned (limit 2); 1 of 3 orders delivered (33 %, under 50 %)',
    risk_findings: [
      { kind: 'returns', returned: 2, limit: 2 },
      { kind: 'delivery', delivered: 1, finished: 3, rate: 33, limit: 50 },
    ],
    blocked: false,
    block_reason: null,
  },
  source: { id: 7, kind: 'form', name: 'Summer landing page' },
  utm: { utm_source: 'facebook', utm_campaign: 'summer' },
};
const orderHistory = (old: string | null, status: string, by: string) => ({
  order_reference: ORDER,
  old_status: old,
  new_status: status,
  changed_by: by,
  changed_at: AT,
});

/** Leads, orders and histories. */
export const CORE_EXAMPLES: Record<string, Example> = {
  'post /leads': {
    body: { leads: [newLead] },
    response: { message: '1 lead created.', references: [LEAD] },
  },
  'get /leads': {
    query: { search_by: 'city', keyWord: 'casa', per_page: '15' },
    response: page('/leads', [{ ...listed, status: 'new', created_at: AT }], 'per_page=15&search_by=city&keyWord=casa'),
  },
  'get /leads/{reference}/show': { params: { reference: LEAD }, response: { data: shownLead } },
  'put /leads': {
    body: {
      leads: [
        { reference: LEAD, status: 'confirmed' },
        { reference: LEAD2, status: 'call_later', action_date: '2026-12-01T14:30:00+01:00' },
      ],
    },
    response: { message: '2 leads updated.', updated: 2, orders: [{ reference: LEAD, order_reference: ORDER }] },
  },
  'delete /leads': {
    body: { references: [LEAD, LEAD2] },
    response: { message: '2 leads deleted.', deleted: 2 },
  },
  'post /orders': {
    body: { orders: [newLead] },
    response: { message: '1 order created.', references: [ORDER] },
  },
  'get /orders': {
    query: { status: 'pushed', per_page: '15' },
    response: page(
      '/orders',
      [
        {
          reference: ORDER,
          lead_reference: LEAD,
          full_name: 'Amina Benali',
          phone: '0612345678',
          city: 'Casablanca',
          status: 'pushed',
          total: 398,
          tracking_number: 'FS123456789MA',
          last_push_error: null,
          created_at: AT,
        },
      ],
      'per_page=15&status=pushed',
    ),
  },
  'get /orders/{reference}/show': {
    params: { reference: ORDER },
    response: {
      data: {
        reference: ORDER,
        lead_reference: LEAD,
        full_name: 'Amina Benali',
        phone: '0612345678',
        city: 'Casablanca',
        area: 'Maarif',
        address: '12 rue Ibnou Mounir',
        data: [{ key: 'utm_source', value: 'facebook' }],
        status: 'pushed',
        total: 398,
        products: [line],
        shipping_company: 'fastship',
        tracking_number: 'FS123456789MA',
        pushed_at: AT,
        push_state: 'sent',
        push_attempts: 1,
        last_push_error: null,
        created_at: AT,
        updated_at: AT,
        history: [orderHistory(null, 'new', 'Karim (agent)'), orderHistory('new', 'pushed', 'system')],
      },
    },
  },
  'put /orders': {
    body: { orders: [{ reference: ORDER, status: 'shipped', tracking_number: 'FS123456789MA' }] },
    response: { message: '1 order updated.', updated: 1 },
  },
  'delete /orders': { body: { references: [ORDER] }, response: { message: '1 order deleted.', deleted: 1 } },
  'post /orders/push': {
    body: { references: [ORDER], shipping_company: 'fastship' },
    response: { message: '1 order queued for the shipping company.', queued: 1, skipped: 0 },
  },
  'get /lead-histories': {
    query: { lead_reference: LEAD, since: '2026-11-30T00:00:00Z' },
    response: page('/lead-histories', [(({ note: _n, ...h }) => h)(leadHistory('new', 'call_later', 'Karim (agent)'))]),
  },
  'get /order-histories': {
    query: { since: '2026-11-30T00:00:00Z' },
    response: page('/order-histories', [orderHistory('new', 'pushed', 'system')]),
  },
};
