import {
  DELIVERY_STATES,
  WEBHOOK_EVENTS,
  deliveryListSchema,
  endpointCreateSchema,
  endpointListSchema,
  endpointUpdateSchema,
} from '../src/webhooks/webhook.schemas.js';
import type { Operation } from './openapi-operation.js';
import { closed, envelope, int, nullable, nullableTime, time, withMessage, type Schema } from './openapi-schemas.js';

const SCOPE = 'MANAGE WEBHOOKS';
const endpoint = {
  ...closed({
    id: int,
    account_id: int,
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } },
    active: { type: 'boolean' },
    failing_since: nullableTime,
    disabled_at: nullableTime,
    disabled_reason: nullable('string'),
    rotation_grace_until: {
      ...nullableTime,
      description: 'After a rotation: until when the replaced secret still signs beside the new one (two signatures)',
    },
    created_at: time,
    updated_at: time,
  }),
  description: 'A webhook endpoint (never its secret)',
};
const delivery = {
  ...closed({
    id: int,
    event_id: { type: 'string', format: 'uuid', description: 'The body\u2019s `id` and the webhook-id header' },
    endpoint_id: int,
    account_id: int,
    event: { type: 'string', enum: [...WEBHOOK_EVENTS] },
    sequence_key: { type: 'string', description: 'Deliveries of one key reach an endpoint in order' },
    state: { type: 'string', enum: [...DELIVERY_STATES] },
    attempts: { type: 'integer', minimum: 0 },
    response_code: nullable('integer'),
    duration_ms: nullable('integer'),
    last_error: nullable('string'),
    next_try_at: nullableTime,
    delivered_at: nullableTime,
    resent_from: nullable('integer', { description: 'The delivery this one re-sends' }),
    created_at: time,
    payload: { type: 'object', description: 'The body\u2019s `data`' },
  }),
  description: 'One event sent (or to send) to one endpoint',
};
const withSecret = withMessage({
  data: endpoint,
  secret: { type: 'string', description: 'The signing secret (`whsec_` + base64 of the key): shown this once' },
});
const one = (item: Schema) => closed({ data: item });
const deleted = withMessage({ deleted: { type: 'integer', minimum: 0 } });
const notFound = { 404: 'Unknown id (another account\u2019s is unknown too)' };

function endpointOperations(): Operation[] {
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
      success: { status: 200, description: 'Updated', schema: withMessage({ data: endpoint }) },
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

function deliveryOperations(): Operation[] {
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
      success: { status: 202, description: 'The new pending delivery', schema: withMessage({ data: delivery }) },
      errors: {
        ...notFound,
        409: {
          description: 'The delivery is still pending (only a delivered or failed one is sent again)',
          message: 'The delivery is still pending; resend it once delivered or failed.',
        },
      },
    },
  ];
}

/** Webhook endpoints and deliveries (docs/api.md "Webhooks"). */
export const WEBHOOK_OPERATIONS: Operation[] = [...endpointOperations(), ...deliveryOperations()];
