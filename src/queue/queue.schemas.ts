import Joi from 'joi';
import { oneOf } from '../validation.js';
import { actionDate } from '../leads/call-back.js';
import { requiredForCallLater } from '../leads/lead.schemas.js';

/** The outcomes an agent sets on a lead taken from the queue. */
export const OUTCOME_STATUSES = ['confirmed', 'no_answer', 'wrong', 'call_later', 'canceled'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/** The longest note kept with an outcome (lead_histories.note is VARCHAR(500)). */
export const NOTE_MAX = 500;

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
  status: oneOf(OUTCOME_STATUSES).required(),
  note: Joi.string().trim().max(NOTE_MAX).allow('', null),
  action_date: requiredForCallLater(actionDate),
});
export interface OutcomeInput {
  status: OutcomeStatus;
  note?: string | null;
  action_date?: string;
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
