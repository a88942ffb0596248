import { QueryTypes, type Sequelize } from 'sequelize';

/** A delivery taken by a worker: what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  endpoint_id: number;
  account_id: number;
  event: string;
  payload: Record<string, unknown>;
  attempts: number;
  created_at: Date;
  url: string;
  /** The endpoint's signing secrets, newest first: two during a rotation's grace period (docs/webhooks.md). */
  secrets: string[];
  /** The hold's end as stored: the attempt is recorded only while the delivery is still held by this claim. */
  claim: string;
}

/** How much one claim may take: the hold, and the attempts in flight per endpoint and per account (all workers). */
export interface ClaimLimits {
  holdMs: number;
  perEndpoint: number;
  perAccount: number;
}

/** An account with due deliveries, and how many of its deliveries are being sent right now (by any worker). */
export interface DueAccount {
  account_id: number;
  in_flight: number;
}

/** The accounts with pending deliveries due now: a skip scan, one index probe per account whatever its backlog. */
export async function dueAccounts(sequelize: Sequelize): Promise<DueAccount[]> {
  return sequelize.query<DueAccount>(
    `WITH RECURSIVE a AS (
       (SELECT account_id FROM webhook_deliveries
         WHERE state = 'pending' AND next_try_at <= now() ORDER BY account_id LIMIT 1)
       UNION ALL
       SELECT (SELECT d.account_id FROM webhook_deliveries d
                WHERE d.state = 'pending' AND d.next_try_at <= now() AND d.account_id > a.account_id
                ORDER BY d.account_id LIMIT 1)
         FROM a WHERE a.account_id IS NOT NULL)
     SELECT a.account_id, (SELECT count(*) FROM webhook_deliveries f
                            WHERE f.account_id = a.account_id AND f.locked_until >= now())::int AS in_flight
       FROM a WHERE a.account_id IS NOT NULL`,
    { type: QueryTypes.SELECT },
  );
}

/**
 * Takes the account's next due delivery and holds it (the lease), within the per-endpoint and per-account caps, or
 * null (nothing claimable, or the account at its cap): the database's
 * webhook_claim (migrations/20261202000000-webhook-events.ts) counts and claims under the account's advisory lock, in
 * one round trip.
 */
export async function claimInAccount(
  sequelize: Sequelize,
  accountId: number,
  limits: ClaimLimits,
): Promise<ClaimedDelivery | null> {
  const [row] = await sequelize.query<ClaimedDelivery>('SELECT * FROM webhook_claim($1, $2, $3, $4)', {
    bind: [accountId, limits.holdMs / 1000, limits.perEndpoint, limits.perAccount],
    type: QueryTypes.SELECT,
  });
  return row ?? null;
}

/**
 * The accounts in the order a worker serves them: fewest attempts in flight first, then round-robin (the accounts
 * after the one served last, then from the start); accounts at their cap are left out.
 */
export function servingOrder(accounts: DueAccount[], perAccount: number, lastServed: number): DueAccount[] {
  const turn = (a: DueAccount) => (a.account_id > lastServed ? 0 : 1);
  return accounts
    .filter((a) => a.in_flight < perAccount)
    .sort((a, b) => a.in_flight - b.in_flight || turn(a) - turn(b) || a.account_id - b.account_id);
}

/** Takes the next due delivery of any account, in serving order (the job uses src/webhooks/webhook-sender.ts). */
export async function claimDue(
  sequelize: Sequelize,
  holdMs: number,
  perEndpoint: number,
  perAccount = perEndpoint,
): Promise<ClaimedDelivery | null> {
  for (const a of servingOrder(await dueAccounts(sequelize), perAccount, 0)) {
    const d = await claimInAccount(sequelize, a.account_id, { holdMs, perEndpoint, perAccount });
    if (d) return d;
  }
  return null;
}

/** The outcome of one attempt. */
export interface Attempt {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** When to try again (pending); null: give up (failed) or delivered. */
  nextTryAt: Date | null;
}

/**
 * Records an attempt on the delivery and on its endpoint (failing since when, or no longer failing); nothing when the
 * hold ran out and another worker took the delivery meanwhile (its own attempt is the one recorded), nor when the
 * endpoint was deleted meanwhile. The endpoint row is locked first, as a delete locks it before its deliveries: the
 * other order deadlocked with a concurrent delete (issue 29).
 */
export async function recordAttempt(sequelize: Sequelize, d: ClaimedDelivery, a: Attempt): Promise<void> {
  // `endpoint` is read (and locked) before any delivery row: the UPDATE evaluates EXISTS (endpoint) before it locks
  // the row it changes. KEY SHARE: a delete waits for it (and it for a delete), attempts of one endpoint do not wait
  // for each other; the endpoint row is written only when its failing mark changes. One statement, one round trip.
  await sequelize.query(
    `WITH endpoint AS (SELECT id FROM webhook_endpoints WHERE id = $8 FOR KEY SHARE),
     done AS (
       UPDATE webhook_deliveries
          SET attempts = attempts + 1, response_code = $2, duration_ms = $3, last_error = $4, locked_until = NULL,
              state = CASE WHEN $5 THEN 'delivered' WHEN $6::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
              delivered_at = CASE WHEN $5 THEN now() END,
              next_try_at = CASE WHEN $5 THEN NULL ELSE $6::timestamptz END
        WHERE id = $1 AND state = 'pending' AND locked_until = $7::timestamptz AND EXISTS (SELECT 1 FROM endpoint)
        RETURNING endpoint_id)
     UPDATE webhook_endpoints w
        SET failing_since = CASE WHEN $5 THEN NULL ELSE coalesce(w.failing_since, now()) END
       FROM done WHERE w.id = done.endpoint_id AND (w.failing_since IS NULL) <> $5`,
    { bind: [d.id, a.status, a.durationMs, a.error?.slice(0, 500) ?? null, a.ok, a.nextTryAt, d.claim, d.endpoint_id] },
  );
}
