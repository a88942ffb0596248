import {
  DELIVERY_STATES,
  WEBHOOK_EVENTS,
  deliveryListSchema,
  endpointCreateSchema,
  endpointListSchema,
  endpointUpdateSchema,
} from '../src/webhooks/webhook.schemas.js';
import type { Operation } from './openapi-operations.js';

const SCOPE = 'MANAGE WEBHOOKS';
const nullableTime = { type: ['string', 'null'], format: 'date-time' };
const endpoint = {
  type: 'object',
  description: 'A webhook endpoint (never its secret)',
  properties: {
    id: { type: 'integer' },
    account_id: { type: 'integer' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } },
    active: { type: 'boolean' },
    failing_since: nullableTime,
    disabled_at: nullableTime,
    disabled_reason: { type: ['string', 'null'] },
    rotation_grace_until: {
      ...nullableTime,
      description: 'After a rotation: until when the replaced secret still signs beside the new one (two signatures)',
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};
const delivery = {
  type: 'object',
  description: 'One event sent (or to send) to one endpoint',
  properties: {
    id: { type: 'integer' },
    event_id: { type: 'string', format: 'uuid', description: 'The body\u2019s `id` and the webhook-id header' },
    endpoint_id: { type: 'integer' },
    account_id: { type: 'integer' },
    event: { type: 'string', enum: [...WEBHOOK_EVENTS] },
    sequence_key: { type: 'string', description: 'Deliveries of one key reach an endpoint in order' },
    state: { type: 'string', enum: [...DELIVERY_STATES] },
    attempts: { type: 'integer' },
    response_code: { type: ['integer', 'null'] },
    duration_ms: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    next_try_at: nullableTime,
    delivered_at: nullableTime,
    resent_from: { type: ['integer', 'null'], description: 'The delivery this one re-sends' },
    created_at: { type: 'string', format: 'date-time' },
    payload: { type: 'object', description: 'The body\u2019s `data`' },
  },
};
const withSecret = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    data: endpoint,
    secret: { type: 'string', description: 'The signing secret (`whsec_` + base64 of the key): shown this once' },
  },
};
const one = (item: Record<string, unknown>) => ({ type: 'object', properties: { data: item } });
const withMessage = (item: Record<string, unknown>) => ({
  type: 'object',
  properties: { message: { type: 'string' }, data: item },
});
const deleted = { type: 'object', properties: { message: { type: 'string' }, deleted: { type: 'integer' } } };
const notFound = { 404: 'Unknown id (another account\u2019s is unknown too)' };

type Envelope = (item: Record<string, unknown>) => Record<string, unknown>;

/** Webhook endpoints and deliveries (docs/api.md "Webhooks"); `envelope` wraps a list item in the paginator. */
export function webhookOperations(envelope: Envelope): Operation[] {
  return [...endpointOperations(envelope), ...deliveryOperations(envelope)];
}

function endpointOperations(envelope: Envelope): Operation[] {
  return [
    {
      method: 'get',
      path: '/webhooks',
      summary: 'Webhook endpoints of the account, oldest first',
      scope: SCOPE,
      query: endpointListSchema,
      success: { status: 200, description: 'A page of endpoints', schema: envelope(endpoint) },
    },
    {
      method: 'post',
      path: '/webhooks',
      summary: 'Add a webhook endpoint (the answer shows its signing secret, once)',
      scope: SCOPE,
      body: endpointCreateSchema,
      success: { status: 201, description: 'Created', schema: withSecret },
    },
    {
      method: 'get',
      path: '/webhooks/{id}',
      summary: 'One webhook endpoint',
      scope: SCOPE,
      params: ['id'],
      success: { status: 200, description: 'The endpoint', schema: one(endpoint) },
      errors: notFound,
    },
    {
      method: 'put',
      path: '/webhooks/{id}',
      summary: 'Change url, events or active (turning it on again restarts its pending deliveries)',
      scope: SCOPE,
      params: ['id'],
      body: endpointUpdateSchema,
      success: { status: 200, description: 'Updated', schema: withMessage(endpoint) },
      errors: notFound,
    },
    {
      method: 'delete',
      path: '/webhooks/{id}',
      summary: 'Delete an endpoint and its delivery log',
      scope: SCOPE,
      params: ['id'],
      success: { status: 200, description: 'Deleted', schema: deleted },
      errors: notFound,
    },
    {
      method: 'post',
      path: '/webhooks/{id}/rotate-secret',
      summary: 'A new signing secret (shown once); later attempts are signed with it',
      scope: SCOPE,
      params: ['id'],
      success: { status: 200, description: 'Rotated', schema: withSecret },
      errors: notFound,
    },
  ];
}

function deliveryOperations(envelope: Envelope): Operation[] {
  return [
    {
      method: 'get',
      path: '/webhooks/deliveries',
      summary: 'The delivery log, newest first',
      scope: SCOPE,
      query: deliveryListSchema,
      success: { status: 200, description: 'A page of deliveries', schema: envelope(delivery) },
    },
    {
      method: 'get',
      path: '/webhooks/deliveries/{id}',
      summary: 'One delivery, with its payload',
      scope: SCOPE,
      params: ['id'],
      success: { status: 200, description: 'The delivery', schema: one(delivery) },
      errors: notFound,
    },
    {
      method: 'post',
      path: '/webhooks/deliveries/{id}/resend',
      summary: 'Send a delivery again (a new delivery with a new event id)',
      scope: SCOPE,
      params: ['id'],
      success: { status: 202, description: 'The new pending delivery', schema: withMessage(delivery) },
      errors: { ...notFound, 409: 'The delivery is still pending (only a delivered or failed one is sent again)' },
    },
  ];
}
