import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { select } from '../query.js';
import type { QueueCounts } from './queue.schemas.js';

// The statements of the agent work queue, one per method. `now()` is the transaction's start: every comparison of one
// transaction sees the same instant.

/** Who asks for a lead: the account whose queue it is, the user, and the candidates already refused in this call. */
export interface Asker {
  accountId: number;
  userId: number;
  /** A lead this user released or let lapse stays away from them this long (their own claims only). */
  skipSeconds: number;
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
 * Releases the user's live claims in the account: they expire now and stay as the user's, so the lead goes to the
 * others at once and comes back to this user only after `skipSeconds`. Answers how many there were.
 */
export async function releaseOwnClaims(sequelize: Sequelize, transaction: Transaction, a: Asker): Promise<number> {
  const released = await select(
    sequelize,
    `UPDATE lead_claims SET expires_at = now()
      WHERE account_id = $1 AND user_id = $2 AND expires_at > now() RETURNING lead_id`,
    [a.accountId, a.userId],
    transaction,
  );
  return released.length;
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

/** A lead nobody holds: no live claim, and not one this user gave back within `skipSeconds`. */
const UNCLAIMED = `NOT EXISTS (SELECT 1 FROM lead_claims c WHERE c.lead_id = l.id
    AND (c.expires_at > now() OR (c.user_id = $2 AND c.expires_at > now() - make_interval(secs => $3))))`;

/**
 * The first rule of the queue: the unclaimed call_later lead whose action date came first, locked (a lead another
 * transaction locks is skipped, not waited for). Served by leads_call_later_due_idx.
 */
export async function lockDueCallLater(sequelize: Sequelize, transaction: Transaction, a: Asker) {
  const [lead] = await select<{ id: number }>(
    sequelize,
    `SELECT l.id FROM leads l
      WHERE l.account_id = $1 AND l.status = 'call_later' AND l.action_date <= now()
        AND l.id <> ALL($4::bigint[]) AND ${UNCLAIMED}
      ORDER BY l.action_date, l.id LIMIT 1 FOR UPDATE OF l SKIP LOCKED`,
    [a.accountId, a.userId, a.skipSeconds, a.tried],
    transaction,
  );
  return lead ? Number(lead.id) : null;
}

/** The second rule: the oldest unclaimed new lead, locked likewise. Served by leads_account_status_created_idx. */
export async function lockOldestNew(sequelize: Sequelize, transaction: Transaction, a: Asker) {
  const [lead] = await select<{ id: number }>(
    sequelize,
    `SELECT l.id FROM leads l
      WHERE l.account_id = $1 AND l.status = 'new' AND l.id <> ALL($4::bigint[]) AND ${UNCLAIMED}
      ORDER BY l.created_at, l.id LIMIT 1 FOR UPDATE OF l SKIP LOCKED`,
    [a.accountId, a.userId, a.skipSeconds, a.tried],
    transaction,
  );
  return lead ? Number(lead.id) : null;
}

/**
 * Claims the lead for the user for `seconds`. The conflict clause reads the latest committed claim, not the
 * statement's snapshot: a live claim of another user (taken by a transaction that committed after this one's candidate
 * query began) is left alone and nothing is answered; the caller tries the next candidate.
 */
export async function upsertClaim(
  sequelize: Sequelize,
  transaction: Transaction,
  claim: { leadId: number; accountId: number; userId: number; seconds: number },
): Promise<Date | null> {
  const [row] = await select<{ expires_at: Date }>(
    sequelize,
    `INSERT INTO lead_claims AS c (lead_id, account_id, user_id, claimed_at, expires_at)
     VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4))
     ON CONFLICT (lead_id) DO UPDATE
       SET account_id = EXCLUDED.account_id, user_id = EXCLUDED.user_id,
           claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
       WHERE c.expires_at <= now() OR c.user_id = EXCLUDED.user_id
     RETURNING c.expires_at`,
    [claim.leadId, claim.accountId, claim.userId, claim.seconds],
    transaction,
  );
  return row ? new Date(row.expires_at) : null;
}

/**
 * The lead's claim, locked for the rest of the transaction: whose it is, whether it is still live, and whether its lead
 * (locked by the caller) still waits in the queue: new, or call_later and due.
 */
export async function lockClaim(sequelize: Sequelize, transaction: Transaction, leadId: number) {
  const [claim] = await select<{ user_id: number; live: boolean; queued: boolean }>(
    sequelize,
    `SELECT c.user_id, c.expires_at > now() AS live,
            coalesce(l.status = 'new' OR (l.status = 'call_later' AND l.action_date <= now()), false) AS queued
       FROM lead_claims c JOIN leads l ON l.id = c.lead_id
      WHERE c.lead_id = $1 FOR UPDATE OF c`,
    [leadId],
    transaction,
  );
  return claim ?? null;
}

/** Deletes every claim of the user, live or not (a deactivated login: its leads go to the others at once). */
export async function deleteUserClaims(sequelize: Sequelize, userId: number): Promise<void> {
  await sequelize.query('DELETE FROM lead_claims WHERE user_id = $1', { bind: [userId] });
}

/** Deletes the lead's claim (its outcome is set). */
export async function deleteClaim(sequelize: Sequelize, transaction: Transaction, leadId: number): Promise<void> {
  await sequelize.query('DELETE FROM lead_claims WHERE lead_id = $1', { bind: [leadId], transaction });
}

/** Gives back the user's live claim of the lead (it expires now and stays theirs, like releaseOwnClaims). */
export async function releaseClaim(sequelize: Sequelize, leadId: number, userId: number): Promise<boolean> {
  const released = await sequelize.query(
    `UPDATE lead_claims SET expires_at = now()
      WHERE lead_id = $1 AND user_id = $2 AND expires_at > now() RETURNING lead_id`,
    { bind: [leadId, userId], type: QueryTypes.SELECT },
  );
  return released.length > 0;
}

/**
 * What waits in the account's queue, in one statement: due call_later leads counted on leads_call_later_due_idx, the
 * new and call_later totals from the kept row_counts (no count(*) over the account), live claims.
 */
export async function countQueue(sequelize: Sequelize, accountId: number): Promise<QueueCounts> {
  const kept = (status: string) =>
    `(SELECT coalesce(sum(n), 0)::int FROM row_counts
       WHERE list = 'leads' AND account_id = $1 AND status = '${status}')`;
  const [row] = await select<QueueCounts & { call_later: number }>(
    sequelize,
    `SELECT (SELECT count(*)::int FROM leads
              WHERE account_id = $1 AND status = 'call_later' AND action_date <= now()) AS due_call_later,
            ${kept('new')} AS new, ${kept('call_later')} AS call_later,
            (SELECT count(*)::int FROM lead_claims WHERE account_id = $1 AND expires_at > now()) AS claimed`,
    [accountId],
  );
  const { call_later, ...counts } = row;
  return { ...counts, scheduled_call_later: Math.max(0, call_later - counts.due_call_later) };
}
