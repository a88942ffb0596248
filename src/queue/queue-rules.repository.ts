import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import type { Asker } from './queue.repository.js';

// The order of the agent work queue: one statement per rule, tried in QUEUE_RULES order (docs/decisions.md "Work queue
// order"). Each finds the first lead of its rule that nobody holds and the asker did not give back, and locks it; a
// lead another transaction locks is skipped, not waited for. `now()` is the transaction's start, so the rules of one
// `next` draw their windows at the same instant.

/** No live claim on the lead, and no give-back of it by the asker ($2) that is still running. */
const UNCLAIMED = `NOT EXISTS (SELECT 1 FROM lead_claims c WHERE c.lead_id = l.id AND c.expires_at > now())
    AND NOT EXISTS (SELECT 1 FROM lead_give_backs g WHERE g.lead_id = l.id AND g.user_id = $2 AND g.until > now())`;

/** The first lead of the account matching `rule`, in `order`, that the asker may take, locked; $4 is the rule's own. */
async function firstUnclaimed(
  sequelize: Sequelize,
  transaction: Transaction,
  a: Asker,
  rule: { where: string; order: string; seconds?: number },
): Promise<number | null> {
  const [lead] = await select<{ id: number }>(
    sequelize,
    `SELECT l.id FROM leads l
      WHERE l.account_id = $1 AND ${rule.where} AND l.id <> ALL($3::bigint[]) AND ${UNCLAIMED}
      ORDER BY ${rule.order} LIMIT 1 FOR UPDATE OF l SKIP LOCKED`,
    [a.accountId, a.userId, a.tried, ...(rule.seconds === undefined ? [] : [rule.seconds])],
    transaction,
  );
  return lead ? Number(lead.id) : null;
}

/**
 * Rule 1: `new` leads created within QUEUE_FRESH_SECONDS, not by an import (a file of old contacts is no fresh
 * inquiry), oldest first: the one closest to leaving the window is called first, so a lead leaves it unworked only
 * when every agent was busy for the whole window. Served by leads_fresh_new_idx.
 */
export const lockFreshNew = (sequelize: Sequelize, transaction: Transaction, a: Asker) =>
  firstUnclaimed(sequelize, transaction, a, {
    where: `l.status = 'new' AND l.import_run_id IS NULL AND l.created_at >= now() - make_interval(secs => $4)`,
    order: 'l.created_at, l.id',
    seconds: a.freshSeconds,
  });

/** Rule 2: `call_later` leads whose action date has come, earliest first. Served by leads_call_later_due_idx. */
export const lockDueCallLater = (sequelize: Sequelize, transaction: Transaction, a: Asker) =>
  firstUnclaimed(sequelize, transaction, a, {
    where: `l.status = 'call_later' AND l.action_date <= now()`,
    order: 'l.action_date, l.id',
  });

/**
 * Rule 3: the other `new` leads (older than the window, or imported), oldest first. Written as every new lead: one
 * that rule 1 could take was refused by it, in this transaction, for a reason this statement sees too (held, given
 * back by the asker, locked, tried), so the oldest new lead found here is never a fresh one rule 1 missed. Served by
 * leads_account_status_created_idx, walked backwards.
 */
export const lockOlderNew = (sequelize: Sequelize, transaction: Transaction, a: Asker) =>
  firstUnclaimed(sequelize, transaction, a, { where: `l.status = 'new'`, order: 'l.created_at, l.id' });

/**
 * Rule 4: `no_answer` leads last changed QUEUE_RETRY_SECONDS ago or more, the longest-waiting first. Setting
 * no_answer again (the next try failed too) moves `updated_at`, so the lead waits another QUEUE_RETRY_SECONDS.
 * Served by leads_no_answer_due_idx.
 */
export const lockDueNoAnswer = (sequelize: Sequelize, transaction: Transaction, a: Asker) =>
  firstUnclaimed(sequelize, transaction, a, {
    where: `l.status = 'no_answer' AND l.updated_at <= now() - make_interval(secs => $4)`,
    order: 'l.updated_at, l.id',
    seconds: a.retrySeconds,
  });

/** The queue's rules in the order they are tried: the first that finds a lead hands it out. */
export const QUEUE_RULES = [lockFreshNew, lockDueCallLater, lockOlderNew, lockDueNoAnswer] as const;
