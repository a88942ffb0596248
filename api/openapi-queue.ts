import { LEAD_STATUSES } from '../src/leads/lead.model.js';
import { outcomeSchema, queueScopeSchema } from '../src/queue/queue.schemas.js';
import type { Operation } from './openapi-operations.js';

/** The scopes of the work queue's operations: taking a lead and setting its outcome is viewing and updating it. */
const WORK = 'VIEW LEADS and UPDATE LEADS';

const nullableString = { type: ['string', 'null'] };
const queueLead = {
  type: 'object',
  description: 'The lead as GET /leads/{reference}/show answers it',
  properties: {
    reference: { type: 'string' },
    full_name: { type: 'string' },
    phone: { type: 'string' },
    city: nullableString,
    status: { type: 'string', enum: [...LEAD_STATUSES] },
    created_at: { type: 'string', format: 'date-time' },
    area: nullableString,
    address: nullableString,
    action_date: { type: ['string', 'null'], format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    data: { type: 'array', items: { type: 'object' } },
    products: { type: 'array', items: { type: 'object' } },
    total: { type: 'number' },
    order_reference: nullableString,
    history: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          lead_reference: { type: 'string' },
          old_status: nullableString,
          new_status: { type: 'string' },
          changed_by: { type: 'string' },
          changed_at: { type: 'string', format: 'date-time' },
          note: nullableString,
        },
      },
    },
  },
};
const count = { type: 'integer', minimum: 0 };
const withMessage = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties: { message: { type: 'string' }, ...properties },
});
const notFound = 'Unknown reference (another account\u2019s lead is unknown too)';

/** The agent work queue (docs/api.md "Agent work queue"). */
export const QUEUE_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/queue',
    summary: 'What waits in the account\u2019s work queue',
    scope: 'VIEW LEADS',
    query: queueScopeSchema,
    success: {
      status: 200,
      description:
        'Counts: due call_later leads and new leads (handed out in that order), call_later leads not yet due, ' +
        'leads agents hold now',
      schema: {
        type: 'object',
        properties: {
          data: {
            type: 'object',
            properties: { due_call_later: count, new: count, scheduled_call_later: count, claimed: count },
          },
        },
      },
    },
  },
  {
    method: 'post',
    path: '/queue/next',
    summary:
      'Take the next lead: due call_later leads earliest first, then the oldest new lead. It is yours for ' +
      'QUEUE_CLAIM_SECONDS (default 300); your earlier claim is released',
    scope: WORK,
    body: queueScopeSchema,
    success: {
      status: 200,
      description: '`data` is the lead with `claim_expires_at`, or null when nothing waits',
      schema: withMessage({
        data: {
          oneOf: [
            {
              ...queueLead,
              properties: { ...queueLead.properties, claim_expires_at: { type: 'string', format: 'date-time' } },
            },
            { type: 'null' },
          ],
        },
      }),
    },
    errors: { 409: 'The queue is busy (another agent claimed every candidate meanwhile): ask again' },
  },
  {
    method: 'post',
    path: '/queue/{reference}/outcome',
    summary:
      'Set the outcome of the lead you hold: confirmed (creates its order), no_answer, wrong, call_later ' +
      '(action_date in the future required), canceled; the note is kept in the history',
    scope: WORK,
    params: ['reference'],
    body: outcomeSchema,
    success: {
      status: 200,
      description: 'The lead after the change, and its order reference once confirmed',
      schema: withMessage({ data: queueLead, order_reference: nullableString }),
    },
    errors: {
      404: notFound,
      409:
        'You do not hold this lead (another agent does, or your claim lapsed and was taken or released), or it ' +
        'no longer waits in the queue (settled or rescheduled elsewhere while you held it): nothing changed',
    },
  },
  {
    method: 'post',
    path: '/queue/{reference}/release',
    summary: 'Give back the lead you hold (skip): others may take it at once, it comes back to you later',
    scope: WORK,
    params: ['reference'],
    success: {
      status: 200,
      description: '`released` is false when you held no live claim on the lead',
      schema: withMessage({ released: { type: 'boolean' } }),
    },
    errors: { 404: notFound },
  },
];
