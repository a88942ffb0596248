import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Models } from '../db/models.js';
import { isRowId } from '../query.js';
import type { WebhookDelivery, WebhookEndpoint } from './webhook-endpoint.model.js';
import type { DeliveryState } from './webhook.schemas.js';

/** A row id from unknown input (`'12'`, 12), or null: a value no row can have names none, and never reaches SQL. */
function rowId(id: unknown, max = 2_147_483_647): number | null {
  const n = typeof id === 'string' && /^[0-9]{1,19}$/.test(id) ? Number(id) : typeof id === 'number' ? id : NaN;
  return Number.isSafeInteger(n) && n > 0 && n <= max ? n : null;
}

export async function accountExists(models: Models, id: number): Promise<boolean> {
  return isRowId(id) && (await models.Account.count({ where: { id } })) === 1;
}

/** An endpoint by id within `accountId` (none: any account); null when unknown. */
export async function findEndpoint(models: Models, id: unknown, accountId?: number): Promise<WebhookEndpoint | null> {
  const wanted = rowId(id);
  if (wanted === null) return null;
  return models.WebhookEndpoint.findOne({ where: { id: wanted, ...(accountId ? { account_id: accountId } : {}) } });
}

export async function endpointPage(models: Models, accountId: number | undefined, page: number, perPage: number) {
  const { rows, count } = await models.WebhookEndpoint.findAndCountAll({
    where: accountId ? { account_id: accountId } : {},
    order: [['id', 'ASC']],
    offset: (page - 1) * perPage,
    limit: perPage,
  });
  return { rows, total: count };
}

/** A delivery by id within `accountId` (none: any account); null when unknown. */
export async function findDelivery(models: Models, id: unknown, accountId?: number): Promise<WebhookDelivery | null> {
  const wanted = rowId(id, Number.MAX_SAFE_INTEGER);
  if (wanted === null) return null;
  return models.WebhookDelivery.findOne({ where: { id: wanted, ...(accountId ? { account_id: accountId } : {}) } });
}

export async function deliveryPage(
  models: Models,
  f: { accountId?: number; endpoint_id?: number; state?: DeliveryState; page: number; per_page: number },
) {
  const where = {
    ...(f.accountId ? { account_id: f.accountId } : {}),
    ...(f.endpoint_id ? { endpoint_id: f.endpoint_id } : {}),
    ...(f.state ? { state: f.state } : {}),
  };
  const { rows, count } = await models.WebhookDelivery.findAndCountAll({
    where,
    order: [['id', 'DESC']],
    offset: (f.page - 1) * f.per_page,
    limit: f.per_page,
  });
  return { rows, total: count };
}

/** A new pending delivery of the event of `d`: a new event id, its payload and time, `resent_from` the original. */
export async function copyDelivery(models: Models, d: WebhookDelivery): Promise<WebhookDelivery> {
  return models.WebhookDelivery.create({
    event_id: crypto.randomUUID(),
    endpoint_id: d.endpoint_id,
    account_id: d.account_id,
    event: d.event,
    sequence_key: d.sequence_key,
    payload: d.payload,
    resent_from: d.id,
    // the event's time, as the original says it
    created_at: d.created_at,
    next_try_at: new Date(),
  });
}

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
  secret: string;
  /** The hold's end as stored: the attempt is recorded only while the delivery is still held by this claim. */
  claim: string;
}

/**
 * Takes the next due delivery that heads its sequence (no lower pending id of the same endpoint and sequence key),
 * of an active endpoint with fewer than `perEndpoint` deliveries in flight (a slow or hanging receiver holds no more
 * lanes than that, the others serve other endpoints), and holds it for `holdMs` (another
 * worker skips it meanwhile). Deliveries of one sequence are therefore sent one at a time and in id order; the hold
 * runs out if the worker dies. `claim` (the hold's end, as stored) tells recordAttempt the delivery is still its own.
 */
export async function claimDue(
  sequelize: Sequelize,
  holdMs: number,
  perEndpoint: number,
): Promise<ClaimedDelivery | null> {
  const [row] = await sequelize.query<ClaimedDelivery>(
    `WITH next AS (
       SELECT d.id FROM webhook_deliveries d
         JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.active
        WHERE d.state = 'pending' AND d.next_try_at <= now()
          AND (d.locked_until IS NULL OR d.locked_until < now())
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                           WHERE p.endpoint_id = d.endpoint_id AND p.sequence_key = d.sequence_key
                             AND p.state = 'pending' AND p.id < d.id)
          AND (SELECT count(*) FROM webhook_deliveries b
                WHERE b.endpoint_id = d.endpoint_id AND b.locked_until >= now()) < $2
        ORDER BY d.next_try_at, d.id
        LIMIT 1
        FOR UPDATE OF d SKIP LOCKED)
     UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $1)
       FROM next, webhook_endpoints w
      WHERE d.id = next.id AND w.id = d.endpoint_id
     RETURNING d.id, d.event_id, d.endpoint_id, d.account_id, d.event, d.payload, d.attempts, d.created_at, w.url,
               w.secret, d.locked_until::text AS claim`,
    { bind: [holdMs / 1000, perEndpoint], type: QueryTypes.SELECT },
  );
  return row ?? null;
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
 * hold ran out and another worker took the delivery meanwhile (its own attempt is the one recorded).
 */
export async function recordAttempt(sequelize: Sequelize, d: ClaimedDelivery, a: Attempt): Promise<void> {
  await sequelize.query(
    `WITH done AS (
       UPDATE webhook_deliveries
          SET attempts = attempts + 1, response_code = $2, duration_ms = $3, last_error = $4, locked_until = NULL,
              state = CASE WHEN $5 THEN 'delivered' WHEN $6::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
              delivered_at = CASE WHEN $5 THEN now() END,
              next_try_at = CASE WHEN $5 THEN NULL ELSE $6::timestamptz END
        WHERE id = $1 AND state = 'pending' AND locked_until = $7::timestamptz
        RETURNING endpoint_id)
     UPDATE webhook_endpoints w
        SET failing_since = CASE WHEN $5 THEN NULL ELSE coalesce(w.failing_since, now()) END
       FROM done WHERE w.id = done.endpoint_id`,
    { bind: [d.id, a.status, a.durationMs, a.error?.slice(0, 500) ?? null, a.ok, a.nextTryAt, d.claim] },
  );
}

/**
 * Disables the endpoint when it has been failing since before `since` and is still active; answers it then (the
 * caller tells its owners), else null (already disabled by another worker, or it delivered meanwhile).
 */
export async function disableIfFailingSince(sequelize: Sequelize, endpointId: number, since: Date, reason: string) {
  const [row] = await sequelize.query<{ id: number; account_id: number; url: string; failing_since: Date }>(
    `UPDATE webhook_endpoints SET active = false, disabled_at = now(), disabled_reason = $3, updated_at = now()
      WHERE id = $1 AND active AND failing_since <= $2
      RETURNING id, account_id, url, failing_since`,
    { bind: [endpointId, since, reason], type: QueryTypes.SELECT },
  );
  return row ?? null;
}

/** The e-mail addresses of the account's active sellers (an endpoint's owners). */
export async function sellerEmails(sequelize: Sequelize, accountId: number): Promise<string[]> {
  const rows = await sequelize.query<{ email: string }>(
    `SELECT email FROM users WHERE account_id = $1 AND role = 'seller' AND active ORDER BY id`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.email);
}

/** An endpoint turned on again starts afresh: its pending deliveries are due now, with a full schedule of retries. */
export async function restartPending(sequelize: Sequelize, endpointId: number): Promise<void> {
  await sequelize.query(
    `UPDATE webhook_deliveries SET next_try_at = now(), attempts = 0, locked_until = NULL
      WHERE endpoint_id = $1 AND state = 'pending'`,
    { bind: [endpointId] },
  );
}

/**
 * Removes delivered and failed deliveries finished before `before` (WEBHOOK_LOG_DAYS), a batch at a time; pending ones
 * stay whatever their age. Answers how many went.
 */
export async function removeFinishedBefore(sequelize: Sequelize, before: Date, batch = 10_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const [{ count }] = await sequelize.query<{ count: number }>(
      `WITH gone AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries
            WHERE state <> 'pending' AND coalesce(delivered_at, created_at) < $1 LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS count FROM gone`,
      { bind: [before, batch], type: QueryTypes.SELECT },
    );
    removed += count;
    if (count < batch) return removed;
  }
}
