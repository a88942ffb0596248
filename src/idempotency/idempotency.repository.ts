import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { KEY_LIFETIME_HOURS } from './idempotency-key.js';

/** Where a key is looked for: one account's one endpoint. */
export interface KeyScope {
  accountId: number;
  endpoint: string;
  key: string;
}

/** A completed key: the request it was first used with and the answer that request got. */
export interface StoredKey {
  request_hash: string;
  status_code: number;
  response: unknown;
}

const FRESH = `created_at >= now() - interval '${KEY_LIFETIME_HOURS} hours'`;

/**
 * The key's committed row younger than the key lifetime, or null. Only committed rows are seen, and a row is
 * committed with its answer, so a row found is complete.
 */
export async function findFreshKey(sequelize: Sequelize, scope: KeyScope): Promise<StoredKey | null> {
  const [row] = await sequelize.query<StoredKey>(
    `SELECT request_hash, status_code, response FROM idempotency_keys
      WHERE account_id = $1 AND endpoint = $2 AND key = $3 AND ${FRESH} AND completed_at IS NOT NULL`,
    { bind: [scope.accountId, scope.endpoint, scope.key], type: QueryTypes.SELECT },
  );
  return row ?? null;
}

/**
 * Takes the key in the write's transaction; answers false when another request holds it. A concurrent request's
 * uncommitted row makes this INSERT wait for that request's end: its commit answers false (replay it), its rollback
 * (a failure, a killed process) lets this one take the key. An expired row not yet cleaned up is taken over.
 */
export async function claimKey(
  sequelize: Sequelize,
  transaction: Transaction,
  scope: KeyScope & { requestHash: string },
): Promise<boolean> {
  const rows = await sequelize.query(
    `INSERT INTO idempotency_keys (account_id, endpoint, key, request_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, endpoint, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, created_at = now(), completed_at = NULL, status_code = NULL,
            response = NULL
      WHERE idempotency_keys.created_at < now() - interval '${KEY_LIFETIME_HOURS} hours'
     RETURNING id`,
    { bind: [scope.accountId, scope.endpoint, scope.key, scope.requestHash], type: QueryTypes.SELECT, transaction },
  );
  return rows.length === 1;
}

/** Stores the answer on the key taken in this transaction; the commit makes both the write and its answer visible. */
export async function completeKey(
  sequelize: Sequelize,
  transaction: Transaction,
  scope: KeyScope,
  answer: { status: number; body: unknown },
): Promise<void> {
  await sequelize.query(
    `UPDATE idempotency_keys SET status_code = $4, response = $5::jsonb, completed_at = now()
      WHERE account_id = $1 AND endpoint = $2 AND key = $3`,
    { bind: [scope.accountId, scope.endpoint, scope.key, answer.status, JSON.stringify(answer.body)], transaction },
  );
}

/** Removes keys older than the key lifetime, at most `limit` of them; answers how many went. */
export async function deleteExpiredKeys(sequelize: Sequelize, limit: number): Promise<number> {
  const rows = await sequelize.query(
    `DELETE FROM idempotency_keys WHERE id IN (
       SELECT id FROM idempotency_keys WHERE created_at < now() - interval '${KEY_LIFETIME_HOURS} hours' LIMIT $1)
       -- checked again on the row itself: a key taken over meanwhile (claimKey) is young again and stays
       AND created_at < now() - interval '${KEY_LIFETIME_HOURS} hours'
     RETURNING id`,
    { bind: [limit], type: QueryTypes.SELECT },
  );
  return rows.length;
}
