import { EXAMPLE_REFS, page, shownLead, type Example } from './openapi-examples.js';

const { LEAD, ORDER, AT } = EXAMPLE_REFS;
const EVENT_ID = '5f0c6c1e-8a4b-4a53-9d2e-2f7f3c1b9a10';
const endpoint = {
  id: 7,
  account_id: 3,
  url: 'https://shop.example/hooks/leadflow',
  events: ['lead.status_changed', 'order.status_changed'],
  active: true,
  failing_since: null,
  disabled_at: null,
  disabled_reason: null,
  rotation_grace_until: null,
  created_at: AT,
  updated_at: AT,
};
const delivery = {
  id: 42,
  event_id: EVENT_ID,
  endpoint_id: 7,
  account_id: 3,
  event: 'lead.status_changed',
  sequence_key: `lead:${LEAD}`,
  state: 'delivered',
  attempts: 1,
  response_code: 200,
  duration_ms: 84,
  last_error: null,
  next_try_at: null,
  delivered_at: AT,
  resent_from: null,
  created_at: AT,
  payload: { reference: LEAD, old_status: 'new', new_status: 'confirmed' },
};
const SECRET = 'whsec_Q2hhbmdlIG1lOiBhbiBleGFtcGxlIHNlY3JldCBvbmx5';
const confirmed = {
  ...shownLead,
  status: 'confirmed',
  action_date: null,
  order_reference: ORDER,
  history: [
    shownLead.history[0],
    { ...shownLead.history[0], old_status: 'new', new_status: 'confirmed', changed_by: 'Karim', note: 'Call at noon' },
  ],
};

/** The work queue, the webhooks and the carrier callback. */
export const MORE_EXAMPLES: Record<string, Example> = {
  'get /queue': {
    response: {
      data: { fresh: 4, due_call_later: 2, new: 140, due_no_answer: 31, scheduled_call_later: 9, claimed: 3 },
    },
  },
  'post /queue/next': {
    body: {},
    response: {
      message: `Lead ${LEAD} is yours until 2026-11-30T09:20:00.000Z.`,
      data: { ...shownLead, status: 'new', action_date: null, claim_expires_at: '2026-11-30T09:20:00.000Z' },
    },
  },
  'post /queue/{reference}/outcome': {
    params: { reference: LEAD },
    body: { status: 'confirmed', note: 'Call at noon' },
    response: { message: `Lead ${LEAD} is now confirmed.`, data: confirmed, order_reference: ORDER },
  },
  'post /queue/{reference}/release': {
    params: { reference: LEAD },
    response: { message: 'Lead released.', released: true },
  },
  'get /webhooks': { response: page('/webhooks', [endpoint]) },
  'post /webhooks': {
    body: { url: endpoint.url, events: endpoint.events },
    response: { message: 'Webhook endpoint created.', data: endpoint, secret: SECRET },
  },
  'get /webhooks/{id}': { params: { id: '7' }, response: { data: endpoint } },
  'put /webhooks/{id}': {
    params: { id: '7' },
    body: { events: ['lead.created', 'lead.status_changed'], active: true },
    response: {
      message: 'Webhook endpoint updated.',
      data: { ...endpoint, events: ['lead.created', 'lead.status_changed'] },
    },
  },
  'delete /webhooks/{id}': { params: { id: '7' }, response: { message: 'Webhook endpoint deleted.', deleted: 1 } },
  'post /webhooks/{id}/rotate-secret': {
    params: { id: '7' },
    response: { message: 'Webhook secret rotated.', data: endpoint, secret: SECRET },
  },
  'get /webhooks/deliveries': {
    query: { endpoint_id: '7', state: 'delivered' },
    response: page('/webhooks/deliveries', [delivery], 'per_page=15&endpoint_id=7&state=delivered'),
  },
  'get /webhooks/deliveries/{id}': { params: { id: '42' }, response: { data: delivery } },
  'post /webhooks/deliveries/{id}/resend': {
    params: { id: '42' },
    response: {
      message: 'Delivery 43 queued.',
      data: {
        ...delivery,
        id: 43,
        event_id: '0b7e2a55-3c1d-4f0e-a1b2-9c8d7e6f5a40',
        state: 'pending',
        attempts: 0,
        response_code: null,
        duration_ms: null,
        next_try_at: AT,
        delivered_at: null,
        resent_from: 42,
      },
    },
  },
  'post /shipping/{code}/callback': {
    params: { code: 'fastship' },
    query: { company: '4' },
    headers: {
      'X-Timestamp': '1796029200',
      'X-Signature': 'sha256=3f5b0c1d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c',
    },
    body: {
      orders: [
        { reference: ORDER, status: 'shipped' },
        { tracking_number: 'FS987654321MA', status: 'delivered' },
      ],
    },
    response: { message: '2 orders updated.', updated: 2 },
  },
};
