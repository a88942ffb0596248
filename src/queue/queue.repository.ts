import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Core } from '../context.js';
import { select } from '../query.js';
import type { QueueCounts } from './queue.schemas.js';

// The statements of the agent work queue, one per method. `now()` is the transaction's start: every comparison of one
// transaction sees the same instant.

/** Who asks for a lead: the account whose queue it is, the user, and the candidates already refused in this call. */
export interface Asker {
  accountId: number;
  userId: number;
  /** A lead this user gives back (or lets lapse) stays away from them this long (QUEUE_CLAIM_SECONDS). */
  skipSeconds: number;
  /** `new` leads this young come first (QUEUE_FRESH_SECONDS). */
  freshSeconds: number;
  /** `no_answer` leads come back this long after their last change (QUEUE_RETRY_SECONDS). */
  retrySeconds: number;
  tried: number[];
}

/** The classid of the queue's advisory locks; the objid is the user. Distinct from the single-key locks in src/db/. */
const AGENT_LOCK_CLASS = 2_026_112_800;

/**
 * Serialises one user's `next` calls until the transaction ends (two tabs asking at once), so releasing their earlier
 * claim and taking a new one leave them one claim per account.
 */
export async function lockAgent(sequelize: Sequelize, transaction: Transaction, userId: number): Promise<void> {
  await sequelize.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', {
    bind: [AGENT_LOCK_CLASS, userId],
    transaction,
  });
}

/**
 * Gives back the user's live claims in the account (`leadId`: only that lead's): they expire now, so the lead goes to
 * the others at once, and the user's give-back of each runs `skipSeconds` from now, whoever claims the lead meanwhile.
 * Answers the leads given back.
 */
export async function releaseClaims(
  sequelize: Sequelize,
  transaction: Transaction | undefined,
  a: Pick<Asker, 'accountId' | 'userId' | 'skipSeconds'>,
  leadId: number | null = null,
): Promise<number[]> {
  // sequelize.query, not select: without a transaction, select reads on the read pool. A live claim's give-back row
  // exists since the claim (upsertClaim), so the upsert updates it: no foreign-key check locks the lead, which a
  // delete of that lead, cascading into the claim this statement holds, would deadlock with (queue-give-backs.test.ts)
  const released = await sequelize.query<{ lead_id: string }>(
    `WITH released AS (
       UPDATE lead_claims SET expires_at = now()
        WHERE account_id = $1 AND user_id = $2 AND expires_at > now() AND ($4::bigint IS NULL OR lead_id = $4)
       RETURNING lead_id, account_id, user_id)
     INSERT INTO lead_give_backs AS g (lead_id, user_id, account_id, until)
       SELECT lead_id, user_id, account_id, now() + make_interval(secs => $3) FROM released
     ON CONFLICT (lead_id, user_id) DO UPDATE SET until = EXCLUDED.until
     RETURNING g.lead_id`,
    { bind: [a.accountId, a.userId, a.skipSeconds, leadId], type: QueryTypes.SELECT, transaction },
  );
  return released.map((r) => Number(r.lead_id));
}

/**
 * Deletes the account's claims that lapsed more than `graceSeconds` ago (a lead cannot be skipped or finished late
 * on them any more). Rows another transaction holds are left for a later call rather than waited for. Run on its own,
 * never inside a claiming transaction: two claimers each holding the other's cleaned rows until they commit would each
 * wait for the other to claim the lead of a row it cleaned (a deadlock; test/integration/queue-attack.test.ts).
 */
export async function deleteStaleClaims(sequelize: Sequelize, accountId: number, graceSeconds: number): Promise<void> {
  await sequelize.query(
    `DELETE FROM lead_claims WHERE lead_id IN (
       SELECT lead_id FROM lead_claims
        WHERE account_id = $1 AND expires_at < now() - make_interval(secs => $2)
        FOR UPDATE SKIP LOCKED)`,
    { bind: [accountId, graceSeconds] },
  );
}

/**
 * Deletes the account's give-backs that ran out. Like deleteStaleClaims, on its own and skipping rows another
 * transaction holds: never inside a claiming transaction.
 */
export async function deleteStaleGiveBacks(sequelize: Sequelize, accountId: number): Promise<void> {
  await sequelize.query(
    `DELETE FROM lead_give_backs WHERE (lead_id, user_id) IN (
       SELECT lead_id, user_id FROM lead_give_backs
        WHERE account_id = $1 AND until <= now()
        FOR UPDATE SKIP LOCKED)`,
    { bind: [accountId] },
  );
}

/**
 * Claims the lead for the user for `seconds`, and writes the user's give-back of it to run `skipSeconds` past the
 * claim's end: a claim left to lapse (a closed tab, a killed process) keeps the lead away from them like a release
 * does, whoever takes the lead after. The conflict clause reads the latest committed claim, not the statement's
 * snapshot: a live claim of another user (taken by a transaction that committed after this one's candidate query began)
 * is left alone and nothing is answered (nor written); the caller tries the next candidate.
 */
export async function upsertClaim(
  sequelize: Sequelize,
  transaction: Transaction,
  claim: { leadId: number; accountId: number; userId: number; seconds: number; skipSeconds: number },
): Promise<Date | null> {
  const [row] = await select<{ expires_at: Date }>(
    sequelize,
    `WITH claimed AS (
       INSERT INTO lead_claims AS c (lead_id, account_id, user_id, claimed_at, expires_at)
       VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4))
       ON CONFLICT (lead_id) DO UPDATE
         SET account_id = EXCLUDED.account_id, user_id = EXCLUDED.user_id,
             claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
         WHERE c.expires_at <= now() OR c.user_id = EXCLUDED.user_id
       RETURNING c.lead_id, c.account_id, c.user_id, c.expires_at),
     given AS (
       INSERT INTO lead_give_backs AS g (lead_id, user_id, account_id, until)
         SELECT lead_id, user_id, account_id, expires_at + make_interval(secs => $5) FROM claimed
       ON CONFLICT (lead_id, user_id) DO UPDATE SET until = EXCLUDED.until)
     SELECT expires_at FROM claimed`,
    [claim.leadId, claim.accountId, claim.userId, claim.seconds, claim.skipSeconds],
    transaction,
  );
  return row ? new Date(row.expires_at) : null;
}

/**
 * The lead's claim, locked for the rest of the transaction: whose it is, whether it is still live, and whether its lead
 * (locked by the caller) still waits in the queue: new, call_later and due, or no_answer last changed `retrySeconds`
 * ago or more.
 */
export async function lockClaim(sequelize: Sequelize, transaction: Transaction, leadId: number, retrySeconds: number) {
  const [claim] = await select<{ user_id: number; live: boolean; queued: boolean }>(
    sequelize,
    `SELECT c.user_id, c.expires_at > now() AS live,
            coalesce(l.status = 'new' OR (l.status = 'call_later' AND l.action_date <= now())
              OR (l.status = 'no_answer' AND l.updated_at <= now() - make_interval(secs => $2)), false) AS queued
       FROM lead_claims c JOIN leads l ON l.id = c.lead_id
      WHERE c.lead_id = $1 FOR UPDATE OF c`,
    [leadId, retrySeconds],
    transaction,
  );
  return claim ?? null;
}

/**
 * The reaction to a changed login (src/reactions.ts), in its transaction: a deactivated agent's claims, live or not,
 * are deleted, so its leads go back to the queue now, not when the claim lapses (up to QUEUE_CLAIM_SECONDS).
 */
export async function onLoginChanged(
  core: Core,
  change: { transaction: Transaction; userId: number; deactivated: boolean },
) {
  if (!change.deactivated) return;
  await core.db.sequelize.query('DELETE FROM lead_claims WHERE user_id = $1', {
    bind: [change.userId],
    transaction: change.transaction,
  });
}

/**
 * Ends the lead's work in the queue (its outcome is set): deletes its claim and every agent's give-back of it, so a
 * lead that comes back later (a call-back, another try of no_answer) is anybody's. The caller holds the lead's lock,
 * which claimers take before writing either table.
 */
export async function endClaim(sequelize: Sequelize, transaction: Transaction, leadId: number): Promise<void> {
  await sequelize.query(
    `WITH given AS (DELETE FROM lead_give_backs WHERE lead_id = $1) DELETE FROM lead_claims WHERE lead_id = $1`,
    { bind: [leadId], transaction },
  );
}

/**
 * What waits in the account's queue, in one statement: fresh `new` leads and due call_later leads counted on their
 * partial indexes; the new, call_later and no_answer totals from the kept row_counts (no count(*) over the
 * account: no_answer leads pile up), less the call_later and no_answer leads whose time has not come; live claims.
 */
export async function countQueue(
  sequelize: Sequelize,
  accountId: number,
  windows: { freshSeconds: number; retrySeconds: number },
): Promise<QueueCounts> {
  const kept = (status: string) =>
    `(SELECT coalesce(sum(n), 0)::int FROM row_counts
       WHERE list = 'leads' AND account_id = $1 AND status = '${status}')`;
  const [row] = await select<Omit<QueueCounts, 'due_no_answer' | 'scheduled_call_later'> & Record<string, number>>(
    sequelize,
    `SELECT (SELECT count(*)::int FROM leads WHERE account_id = $1 AND status = 'new' AND import_run_id IS NULL
                AND created_at >= now() - make_interval(secs => $2)) AS fresh,
            (SELECT count(*)::int FROM leads
              WHERE account_id = $1 AND status = 'call_later' AND action_date <= now()) AS due_call_later,
            ${kept('new')} AS new, ${kept('call_later')} AS call_later, ${kept('no_answer')} AS no_answer,
            (SELECT count(*)::int FROM leads WHERE account_id = $1 AND status = 'no_answer'
                AND updated_at > now() - make_interval(secs => $3)) AS resting_no_answer,
            (SELECT count(*)::int FROM lead_claims WHERE account_id = $1 AND expires_at > now()) AS claimed`,
    [accountId, windows.freshSeconds, windows.retrySeconds],
  );
  const { fresh, due_call_later, new: all, call_later, no_answer, resting_no_answer, claimed } = row;
  return {
    fresh: Math.min(fresh, all),
    due_call_later,
    new: all,
    due_no_answer: Math.max(0, no_answer - resting_no_answer),
    scheduled_call_later: Math.max(0, call_later - due_call_later),
    claimed,
  };
}
