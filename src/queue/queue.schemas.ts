import Joi from 'joi';
import { isCalendarDate } from '../validation.js';
import { requiredForCallLater } from '../leads/lead.schemas.js';

/** The outcomes an agent sets on a lead taken from the queue. */
export const OUTCOME_STATUSES = ['confirmed', 'no_answer', 'wrong', 'call_later', 'canceled'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/** The longest note kept with an outcome (lead_histories.note is VARCHAR(500)). */
export const NOTE_MAX = 500;

/**
 * A date-time with an offset: the spec's Y-m-d\TH:i:sP, or ISO 8601 with Z and milliseconds (toISOString()). Offsets
 * are those places have, up to 14 hours (as PUT /leads: src/leads/lead.schemas.ts).
 */
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d)$/;
/** The last instant of DATE_RANGE in UTC: 9999-12-31 with an offset behind UTC would be year 10000 (`+010000-…`). */
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** When to call back: a real date-time with an offset, converted to a Date; in the future when `future`. */
const callBackAt = Joi.string()
  .max(40)
  .custom((v: string, h) => {
    if (!DATE_TIME_WITH_OFFSET.test(v)) return h.error('date.format');
    if (!isCalendarDate(v)) return h.error('date.range');
    const at = new Date(v);
    if (at.getTime() > LAST_INSTANT) return h.error('date.range');
    return h.state.ancestors[0]?.status === 'call_later' && at.getTime() <= Date.now() ? h.error('date.future') : at;
  });

/**
 * Which account's queue: only an admin names one (src/queue/queue.service.ts refuses another account for anybody
 * else, like an unknown one).
 */
export const queueScopeSchema = Joi.object({
  account_id: Joi.number().integer().positive().max(2_147_483_647),
});
export interface QueueScopeInput {
  account_id?: number;
}

/** An outcome: the new status, an optional note (trimmed; empty is none), the call-back time for call_later. */
export const outcomeSchema = Joi.object({
  status: Joi.string()
    .valid(...OUTCOME_STATUSES)
    .required(),
  note: Joi.string().trim().max(NOTE_MAX).allow('', null),
  action_date: requiredForCallLater(callBackAt),
});
export interface OutcomeInput {
  status: OutcomeStatus;
  note?: string | null;
  action_date?: Date;
}

/** What waits in one account's queue, in the order of the queue's rules (docs/api.md "Agent work queue"). */
export interface QueueCounts {
  /** new leads created within QUEUE_FRESH_SECONDS, not imported (handed out first, oldest first); part of `new`. */
  fresh: number;
  /** call_later leads whose action date has come (handed out next, earliest first). */
  due_call_later: number;
  /** every new lead, the fresh ones included (those older than the window come third, oldest first). */
  new: number;
  /** no_answer leads last changed QUEUE_RETRY_SECONDS ago or more (handed out last, longest-waiting first). */
  due_no_answer: number;
  /** call_later leads whose action date is still ahead. */
  scheduled_call_later: number;
  /** leads an agent holds now (unexpired claims). */
  claimed: number;
}
