import { outcomeSchema, queueScopeSchema } from '../src/queue/queue.schemas.js';
import type { Operation } from './openapi-operation.js';
import { claimedLead, closed, count, leadShow, nullable, withMessage } from './openapi-schemas.js';

/** The scopes of the work queue's operations: taking a lead and setting its outcome is viewing and updating it. */
const WORK = 'VIEW LEADS and UPDATE LEADS';

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
        'Counts in the order leads are handed out: fresh new leads (within QUEUE_FRESH_SECONDS, not imported, ' +
        'part of `new`), due call_later leads, every new lead, no_answer leads due for another try; then ' +
        'call_later leads not yet due and leads agents hold now',
      schema: closed({
        data: closed({
          fresh: count,
          due_call_later: count,
          new: count,
          due_no_answer: count,
          scheduled_call_later: count,
          claimed: count,
        }),
      }),
    },
  },
  {
    method: 'post',
    path: '/queue/next',
    summary:
      'Take the next lead: new leads of the last QUEUE_FRESH_SECONDS (not imported) oldest first, due call_later ' +
      'leads earliest first, other new leads oldest first, no_answer leads due for another try. It is yours for ' +
      'QUEUE_CLAIM_SECONDS (default 300); your earlier claim is given back',
    scope: WORK,
    body: queueScopeSchema,
    success: {
      status: 200,
      description: '`data` is the lead with `claim_expires_at`, or null when nothing waits',
      schema: withMessage({ data: { oneOf: [claimedLead, { type: 'null' }] } }),
    },
    errors: {
      409: {
        description: 'The queue is busy (another agent claimed every candidate meanwhile): ask again',
        message: 'The queue is busy; ask again.',
      },
    },
  },
  {
    method: 'post',
    path: '/queue/{reference}/outcome',
    summary:
      'Set the outcome of the lead you hold: confirmed (creates its order), no_answer, wrong, call_later ' +
      '(action_date in the future required, any ISO 8601 offset, `Z` included; a time that has passed is refused ' +
      'naming it), canceled; the note is kept in the history',
    scope: WORK,
    params: ['reference'],
    body: outcomeSchema,
    success: {
      status: 200,
      description: 'The lead after the change, and its order reference once confirmed',
      schema: withMessage({ data: leadShow, order_reference: nullable('string') }),
    },
    errors: {
      404: notFound,
      409: {
        description:
          'You do not hold this lead (another agent does, or your claim lapsed and was taken or released), or it ' +
          'no longer waits in the queue (settled or rescheduled elsewhere while you held it): nothing changed',
        message: 'Another agent is working on this lead.',
      },
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
