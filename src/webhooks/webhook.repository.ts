import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Models } from '../context.js';
import type { WebhookDelivery, WebhookEndpoint } from './webhook-endpoint.model.js';
import type { DeliveryState } from './webhook.schemas.js';

/** A row id from unknown input (`'12'`, 12), or null: a value no row can have names none, and never reaches SQL. */
function rowId(id: unknown, max = 2_147_483_647): number | null {
  const n = typeof id === 'string' && /^[0-9]{1,19}$/.test(id) ? Number(id) : typeof id === 'number' ? id : NaN;
  return Number.isSafeInteger(n) && n > 0 && n <= max ? n : null;
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

/** The classid of the endpoint cap's advisory locks; the objid is the account. */
const ENDPOINT_CAP_LOCK_CLASS = 2_026_120_203;

/**
 * Adds an endpoint unless the account has `max` already (answers null then). Two creates at once cannot both take
 * the last place: the count and the insert run under the account's advisory lock. `created_at` is the database's
 * clock, the one events are stamped with (an endpoint receives the events of changes made after it was created).
 */
export async function createEndpointCapped(
  sequelize: Sequelize,
  models: Models,
  attrs: { account_id: number; url: string; events: string[]; active: boolean; secret: string },
  max: number,
): Promise<WebhookEndpoint | null> {
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', {
      bind: [ENDPOINT_CAP_LOCK_CLASS, attrs.account_id],
      transaction,
    });
    if ((await models.WebhookEndpoint.count({ where: { account_id: attrs.account_id }, transaction })) >= max)
      return null;
    const [row] = await sequelize.query<{ id: number }>(
      `INSERT INTO webhook_endpoints (account_id, url, events, secret, active)
       VALUES ($1, $2, $3::text[], $4, $5) RETURNING id`,
      {
        bind: [attrs.account_id, attrs.url, attrs.events, attrs.secret, attrs.active],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    return models.WebhookEndpoint.findByPk(row.id, { transaction });
  });
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

export { claimDue, recordAttempt, type Attempt, type ClaimedDelivery } from './webhook-claim.js';

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
 * Runs `deleteSql` (a DELETE of at most $2 rows matching `before` = $1, answering count) until a batch comes back
 * short: a large clean-up in short transactions. Answers how many rows went.
 */
export async function deleteInBatches(sequelize: Sequelize, deleteSql: string, before: Date, batch = 10_000) {
  let removed = 0;
  for (;;) {
    const [{ count }] = await sequelize.query<{ count: number }>(deleteSql, {
      bind: [before, batch],
      type: QueryTypes.SELECT,
    });
    removed += count;
    if (count < batch) return removed;
  }
}

/**
 * Removes delivered and failed deliveries finished before `before` (WEBHOOK_LOG_DAYS), a batch at a time; pending ones
 * stay whatever their age. Answers how many went.
 */
export const removeFinishedBefore = (sequelize: Sequelize, before: Date, batch?: number): Promise<number> =>
  deleteInBatches(
    sequelize,
    `WITH gone AS (
       DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
          WHERE state <> 'pending' AND coalesce(delivered_at, created_at) < $1 LIMIT $2)
       RETURNING 1)
     SELECT count(*)::int AS count FROM gone`,
    before,
    batch,
  );
