import type { Sequelize, Transaction } from 'sequelize';
import { ConflictError } from '../errors.js';
import { placeholders, select } from '../query.js';
import type { PreparedLead } from './lead.check.js';

/** A batch of checked leads and who writes them: everything the one insert statement needs. */
export interface LeadBatch {
  accountId: number;
  userId: number | null;
  tokenId: number | null;
  /** The display name history records for the actor. */
  actorName: string;
  references: string[];
  leads: PreparedLead[];
  importRunId: number | null;
  /** The file row of each lead of an import (a unique index refuses the same row twice). */
  importRows: (number | null)[];
  /** Phones of the same import still being written by another transaction: they make a lead a duplicate too. */
  seenPhones: string[];
  duplicateWindowDays: number;
}

/**
 * Parent checks per batch: with `LEAD_PARENT_CHECKS=batch` (the default) and a role allowed to set
 * session_replication_role (a superuser, or `GRANT SET ON PARAMETER session_replication_role` on PostgreSQL 15+, as
 * the embedded server's app role has), insertLeadBatch locks and counts the parents of a whole batch once and inserts
 * with the per-row foreign-key triggers off; otherwise PostgreSQL checks every row. Probed once per service.
 */
export function batchCheckProbe(sequelize: Sequelize, mode: 'batch' | 'row'): () => Promise<boolean> {
  let answer: Promise<boolean> | null = null;
  return () =>
    (answer ??=
      mode === 'row'
        ? Promise.resolve(false)
        : sequelize
            .transaction((t) => sequelize.query('SET LOCAL session_replication_role = replica', { transaction: t }))
            .then(
              () => true,
              (err) => {
                // only a refusal (insufficient_privilege) is an answer; any other failure is asked again next time
                if ((err as { original?: { code?: string } }).original?.code !== '42501') answer = null;
                return false;
              },
            ));
}

/**
 * What the foreign keys of leads, lead_products and lead_histories check row by row, once for a batch: each parent
 * row the batch points at is locked FOR KEY SHARE until commit (so it cannot go away before the batch is visible to
 * its ON DELETE actions) and must exist. A lead's products and history point at leads of the same statement.
 */
async function lockParents(sequelize: Sequelize, transaction: Transaction, batch: LeadBatch) {
  const products = [...new Set(batch.leads.flatMap((l) => l.products.map((p) => p.product_id)))];
  const cities = [...new Set(batch.leads.flatMap((l) => (l.city_id ? [l.city_id] : [])))];
  const found = await select<{ kind: string; n: number }>(
    sequelize,
    `WITH a AS (SELECT 'account'::text AS kind FROM accounts WHERE id = $1 FOR KEY SHARE),
          u AS (SELECT 'user'::text FROM users WHERE id = $2 FOR KEY SHARE),
          t AS (SELECT 'token'::text FROM api_tokens WHERE id = $3 FOR KEY SHARE),
          r AS (SELECT 'import run'::text FROM import_runs WHERE id = $4 FOR KEY SHARE),
          p AS (SELECT 'product'::text FROM products WHERE id = ANY($5::int[]) FOR KEY SHARE),
          c AS (SELECT 'city'::text FROM cities WHERE id = ANY($6::int[]) FOR KEY SHARE)
     SELECT kind, count(*)::int AS n
       FROM (TABLE a UNION ALL TABLE u UNION ALL TABLE t UNION ALL TABLE r UNION ALL TABLE p UNION ALL TABLE c) x
      GROUP BY kind`,
    [batch.accountId, batch.userId, batch.tokenId, batch.importRunId, products, cities],
    transaction,
  );
  const n = new Map(found.map((f) => [f.kind, f.n]));
  const expected: [string, number][] = [
    ['account', 1],
    ['user', batch.userId ? 1 : 0],
    ['token', batch.tokenId ? 1 : 0],
    ['import run', batch.importRunId ? 1 : 0],
    ['product', products.length],
    ['city', cities.length],
  ];
  for (const [kind, want] of expected) {
    if ((n.get(kind) ?? 0) !== want)
      throw new ConflictError(`A ${kind} these leads refer to no longer exists; nothing was written.`);
  }
}

const LEAD_COLUMNS = [
  ['reference', 'text'],
  ['phone', 'text'],
  ['phone_normalized', 'text'],
  ['full_name', 'text'],
  ['city', 'text'],
  ['city_id', 'int'],
  ['area', 'text'],
  ['address', 'text'],
  ['data', 'text'],
  ['status', 'text'],
  ['action_date', 'timestamptz'],
  ['total', 'numeric'],
  ['import_row', 'int'],
] as const;
const PRODUCT_COLUMNS = [
  ['reference', 'text'],
  ['product_id', 'int'],
  ['sku', 'text'],
  ['name', 'text'],
  ['quantity', 'int'],
  ['price', 'numeric'],
  ['position', 'smallint'],
] as const;
type Column = readonly [string, string];

/** `unnest($n::type[], …)` of one array per column, and the column names for its alias. */
function unnestOf(add: (v: unknown, cast: string) => string, columns: readonly Column[], rows: unknown[][]) {
  const arrays = columns.map(([, type], i) =>
    add(
      rows.map((r) => r[i] ?? null),
      `::${type}[]`,
    ),
  );
  return { unnest: `unnest(${arrays.join(', ')})`, names: columns.map(([name]) => name).join(', ') };
}

/** The batch's leads and product lines as rows in LEAD_COLUMNS / PRODUCT_COLUMNS order. */
function batchRows(batch: LeadBatch): { leads: unknown[][]; products: unknown[][] } {
  const leads = batch.leads.map((l, i) => [
    batch.references[i],
    l.phone,
    l.phone_normalized,
    l.full_name,
    l.city,
    l.city_id,
    l.area,
    l.address,
    JSON.stringify(l.data),
    l.status,
    l.action_date,
    l.total,
    batch.importRows[i],
  ]);
  const products = batch.leads.flatMap((l, i) =>
    l.products.map((p, j) => [batch.references[i], p.product_id, p.sku, p.name, p.quantity, p.price, j]),
  );
  return { leads, products };
}

/**
 * Set-based insert of a batch of leads, their products and creation history in one statement (one round trip,
 * whatever the count). A phone seen in the account within the duplicate window, earlier in the same batch, or among
 * `seenPhones` makes the lead `duplicate`, recorded by `system`. Returns the inserted rows.
 */
function insertStatement(batch: LeadBatch): { sql: string; params: unknown[] } {
  const { params, add } = placeholders();
  const rows = batchRows(batch);
  const v = unnestOf(add, LEAD_COLUMNS, rows.leads);
  const x = unnestOf(add, PRODUCT_COLUMNS, rows.products);
  const account = add(batch.accountId);
  const user = add(batch.userId);
  const days = add(batch.duplicateWindowDays);
  const sql = `
    WITH v AS (
      SELECT * FROM ${v.unnest} WITH ORDINALITY AS v(${v.names}, ord)
    ), earlier AS (
      SELECT DISTINCT phone_normalized FROM leads
       WHERE account_id = ${account} AND phone_normalized IN (SELECT phone_normalized FROM v)
         AND created_at >= now() - make_interval(days => ${days})
      UNION SELECT unnest(${add(batch.seenPhones, '::text[]')})
    ), s AS (
      SELECT v.*,
             CASE WHEN ${days} > 0 AND (e.phone_normalized IS NOT NULL
                    OR row_number() OVER (PARTITION BY v.phone_normalized ORDER BY v.ord) > 1)
                  THEN 'duplicate' ELSE coalesce(v.status, 'new') END AS final_status
        FROM v LEFT JOIN earlier e USING (phone_normalized)
    ), ins AS (
      INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, city_id, area, address, data,
                         status, action_date, total, created_by_user_id, created_by_token_id, import_run_id, import_row)
      SELECT ${account}, s.reference, s.phone, s.phone_normalized, s.full_name, s.city, s.city_id, s.area, s.address,
             s.data::jsonb, s.final_status, s.action_date, s.total, ${user}, ${add(batch.tokenId)},
             ${add(batch.importRunId)}, s.import_row
        FROM s ORDER BY s.ord
      RETURNING id, reference, status
    ), products AS (
      INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
      SELECT ${account}, ins.id, x.product_id, x.sku, x.name, x.quantity, x.price, x.position
        FROM ${x.unnest} AS x(${x.names}) JOIN ins ON ins.reference = x.reference
    ), history AS (
      INSERT INTO lead_histories (account_id, lead_id, lead_reference, old_status, new_status, changed_by,
                                  changed_by_user_id)
      SELECT ${account}, ins.id, ins.reference, NULL, ins.status,
             CASE WHEN ins.status = 'duplicate' THEN 'system' ELSE ${add(batch.actorName)} END,
             CASE WHEN ins.status = 'duplicate' THEN NULL ELSE ${user}::int END
        FROM ins
    )
    SELECT id, reference, status FROM ins`;
  return { sql, params };
}

/**
 * Writes a batch in `transaction`: with `perBatch` (see batchCheckProbe) the parents are checked once and the per-row
 * foreign-key triggers are off for the statement.
 */
export async function insertLeadBatch(
  sequelize: Sequelize,
  transaction: Transaction,
  batch: LeadBatch,
  perBatch: boolean,
): Promise<{ id: number; reference: string; status: string }[]> {
  if (perBatch) await lockParents(sequelize, transaction, batch);
  // unnest's row estimates put a big batch's statement over jit_above_cost on servers built with JIT, and compiling
  // it (≈ 80 ms for 5,000 leads) costs more than running it. Bitmap scans are off for the statement because the only
  // thing they could serve in it is the duplicate check through a trigram GIN index (pg_trgm answers equality too):
  // PostgreSQL 15, once its statistics give the account some thousands of leads, probed leads_phone_trgm_idx once
  // per phone, ≈ 15 ms each (78 s for a 5,000-lead batch), where leads_account_phone_idx takes microseconds.
  // SET LOCAL ends with the transaction; both settings that change what else runs are set back right after the
  // insert, so nothing else in the transaction runs without triggers or bitmap scans. Set whatever the batch size,
  // so the statement count does not depend on it.
  await sequelize.query(
    'SET LOCAL jit = off; SET LOCAL enable_bitmapscan = off' +
      (perBatch ? '; SET LOCAL session_replication_role = replica' : ''),
    { transaction },
  );
  const { sql, params } = insertStatement(batch);
  const rows = await select<{ id: number; reference: string; status: string }>(sequelize, sql, params, transaction);
  await sequelize.query(
    `SET LOCAL enable_bitmapscan TO DEFAULT${perBatch ? '; SET LOCAL session_replication_role = origin' : ''}`,
    { transaction },
  );
  return rows;
}
