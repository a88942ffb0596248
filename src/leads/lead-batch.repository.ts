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
  /** A lead source's one lead (a form submission, a shop order; issue 34): its source, UTM fields and order id. */
  origin?: LeadOrigin | null;
}

/** Where a source's lead came from; written on every lead of its batch (a source's batch holds one lead). */
export interface LeadOrigin {
  sourceId: number;
  /** Who the creation history names (the source, e.g. "Form: Summer landing"), in place of the actor. */
  name: string;
  utm: Record<string, string> | null;
  externalId: string | null;
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
          c AS (SELECT 'city'::text FROM cities WHERE id = ANY($6::int[]) FOR KEY SHARE),
          s AS (SELECT 'source'::text FROM lead_sources WHERE id = $7 FOR KEY SHARE)
     SELECT kind, count(*)::int AS n
       FROM (TABLE a UNION ALL TABLE u UNION ALL TABLE t UNION ALL TABLE r UNION ALL TABLE p UNION ALL TABLE c
             UNION ALL TABLE s) x
      GROUP BY kind`,
    [batch.accountId, batch.userId, batch.tokenId, batch.importRunId, products, cities, batch.origin?.sourceId ?? null],
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
    ['source', batch.origin ? 1 : 0],
  ];
  for (const [kind, want] of expected) {
    if ((n.get(kind) ?? 0) !== want)
      throw new ConflictError(`A ${kind} these leads refer to no longer exists; nothing was written.`);
  }
}

/** Whether JSON text has an escape other than \" and \\ (a control character, a lone surrogate). */
function otherEscape(json: string): boolean {
  for (let at = json.indexOf('\\'); at >= 0; at = json.indexOf('\\', at + 2)) {
    const next = json.charCodeAt(at + 1);
    if (next !== 0x22 && next !== 0x5c) return true;
  }
  return false;
}

/**
 * An array parameter as PostgreSQL's array literal, written by JSON.stringify: for strings without control characters
 * or lone surrogates the two grammars agree (quoted elements, \" and \\ as the only escapes, null read as NULL), so
 * `["a",null,1]` becomes `{"a",null,1}`. That is one native call and one string, where pg's own array serialisation
 * (kept for any other list) escapes element by element in JavaScript: ≈ 8 % of an import's Node CPU.
 */
export function arrayLiteral(values: unknown[]): string | unknown[] {
  const json = JSON.stringify(values);
  return otherEscape(json) ? values : `{${json.slice(1, -1)}}`;
}

type Column = readonly [name: string, type: string];
const LEAD_COLUMNS: Column[] = [
  ['reference', 'text'],
  ['phone', 'text'],
  ['phone_normalized', 'text'],
  ['full_name', 'text'],
  ['city', 'text'],
  ['city_id', 'int'],
  ['area', 'text'],
  ['address', 'text'],
  ['data', 'jsonb'],
  ['status', 'text'],
  ['action_date', 'timestamptz'],
  ['total', 'numeric'],
  ['import_row', 'int'],
  ['system_note', 'text'],
];
const PRODUCT_COLUMNS: Column[] = [
  ['lead', 'int'],
  ['product_id', 'int'],
  ['sku', 'text'],
  ['name', 'text'],
  ['quantity', 'int'],
  ['price', 'numeric'],
  ['position', 'smallint'],
];

/**
 * `unnest($n::type[], …) WITH ORDINALITY AS alias(…, ord)` over one array per column. unnest, unlike a JSON set
 * function, lets the planner see how many rows the batch has (json_array_elements counts as 100 rows; with that, one
 * plan checked 5,000 phones against a seq scan each: 1.2 s of CPU for one batch).
 */
function unnestOf(add: (v: unknown, cast: string) => string, columns: Column[], values: unknown[][], alias: string) {
  const arrays = columns.map(([name, type], i) =>
    add(arrayLiteral(name === 'data' ? values[i].map((d) => JSON.stringify(d)) : values[i]), `::${type}[]`),
  );
  const names = columns.map(([name]) => name).join(', ');
  return `unnest(${arrays.join(', ')}) WITH ORDINALITY AS ${alias}(${names}, ord)`;
}

/** The batch's leads and product lines, one array per column in LEAD_COLUMNS / PRODUCT_COLUMNS order. */
function batchColumns(batch: LeadBatch): { leads: unknown[][]; products: unknown[][] } {
  const { leads } = batch;
  let count = 0;
  for (const l of leads) count += l.products.length;
  const products = PRODUCT_COLUMNS.map(() => new Array<unknown>(count));
  let at = 0;
  leads.forEach((l, i) =>
    l.products.forEach((p, j) => {
      products[0][at] = i + 1;
      products[1][at] = p.product_id;
      products[2][at] = p.sku;
      products[3][at] = p.name;
      products[4][at] = p.quantity;
      products[5][at] = p.price;
      products[6][at++] = j;
    }),
  );
  return {
    leads: [
      batch.references,
      leads.map((l) => l.phone),
      leads.map((l) => l.phone_normalized),
      leads.map((l) => l.full_name),
      leads.map((l) => l.city),
      leads.map((l) => l.city_id),
      leads.map((l) => l.area),
      leads.map((l) => l.address),
      leads.map((l) => l.data),
      leads.map((l) => l.status ?? null),
      leads.map((l) => l.action_date ?? null),
      leads.map((l) => l.total),
      batch.importRows,
      leads.map((l) => l.system_note ?? null),
    ],
    products,
  };
}

/** The creation history's note of a lead from a blocked phone, before the block's reason; the column's width. */
export const BLOCKED_NOTE = 'Blocked phone: ';
const NOTE_MAX = 500;

/**
 * The batch's rows with the status the rules give them (`final_status`), whether a block decided it (`blocked`), and
 * the creation history's note (`note`): a blocked phone first, then the duplicate rule, then the status asked for.
 */
function checkedRows(add: (v: unknown, cast?: string) => string, account: string, days: string): string {
  return `
      SELECT v.*,
             CASE WHEN b.reason IS NOT NULL THEN 'canceled'
                  WHEN ${days} > 0 AND v.phone_normalized IS NOT NULL
                    AND (e.hit OR seen.phone_normalized IS NOT NULL
                         OR row_number() OVER (PARTITION BY v.phone_normalized ORDER BY v.ord) > 1)
                  THEN 'duplicate' ELSE coalesce(v.status, 'new') END AS final_status,
             b.reason IS NOT NULL AS blocked,
             CASE WHEN b.reason IS NOT NULL THEN left(${add(BLOCKED_NOTE)} || b.reason, ${NOTE_MAX})
                  ELSE v.system_note END AS note
        FROM v LEFT JOIN seen USING (phone_normalized)
        LEFT JOIN blocked_phones b ON b.account_id = ${account} AND b.phone_normalized = v.phone_normalized
        LEFT JOIN LATERAL (
          SELECT true AS hit FROM leads l
           WHERE l.phone_normalized = v.phone_normalized
             AND (l.phone_normalized, l.account_id) >= (v.phone_normalized, ${account})
             AND (l.phone_normalized, l.account_id) <= (v.phone_normalized, ${account})
             AND l.created_at >= now() - make_interval(days => ${days})
             AND NOT l.created_blocked
           LIMIT 1
        ) e ON true`;
}

/**
 * Set-based insert of a batch of leads, their products and creation history in one statement (one round trip,
 * whatever the count). Ids are drawn in input order before the insert, so products and history need no join back to
 * the inserted rows. A phone seen in the account within the duplicate window, earlier in the same batch, or among
 * `seenPhones` makes the lead `duplicate`, recorded by `system`; a lead without an E.164 form (an uncallable phone)
 * is never a duplicate, and one with a `system_note` (its `wrong` status chosen by the system) is recorded by `system`
 * with that note. A phone the account blocked (blocked_phones, docs/decisions.md "Blocklist") makes the lead
 * `canceled` before any other rule, recorded by `system` with the block's reason, and marked `created_blocked`, which
 * the duplicate probe skips (after an unblock the next lead is `new`). Every lead is written or the statement fails;
 * it answers the ids of the confirmed ones.
 *
 * The account's earlier leads are probed once per phone, a constant cost per lead (reading the account's recent leads
 * once per batch grew with the account: ≈ 25 ms per 5,000-lead batch at 95 k leads; a 1 M-row import took 50–57 s
 * instead of 28–31 s, docs/performance.md). The row comparison on (phone_normalized, account_id) can only be served by
 * leads_phone_account_idx, so the probe does not depend on the account's statistics (migration 20261126100000).
 */
function insertStatement(batch: LeadBatch): { sql: string; params: unknown[] } {
  const { params, add } = placeholders();
  const columns = batchColumns(batch);
  const account = add(batch.accountId);
  const user = add(batch.userId);
  const days = add(batch.duplicateWindowDays);
  const { origin } = batch;
  const utm = origin?.utm ? JSON.stringify(origin.utm) : null;
  const token = add(batch.tokenId, '::int');
  const importRun = add(batch.importRunId, '::int');
  const source = add(origin?.sourceId ?? null, '::int');
  const sql = `
    WITH v AS (
      SELECT * FROM ${unnestOf(add, LEAD_COLUMNS, columns.leads, 'v')}
    ), seen AS (
      SELECT DISTINCT unnest(${add(arrayLiteral(batch.seenPhones), '::text[]')}) AS phone_normalized
    ), checked AS (
${checkedRows(add, account, days)}
       ORDER BY v.ord
    ), s AS (
      SELECT nextval('leads_id_seq') AS id, checked.* FROM checked
    ), ins AS (
      INSERT INTO leads (id, account_id, reference, phone, phone_normalized, full_name, city, city_id, area, address,
                         data, status, action_date, total, created_by_user_id, created_by_token_id, import_run_id,
                         import_row, created_blocked, source_id, utm, external_id, entry_point)
      SELECT s.id, ${account}, s.reference, s.phone, s.phone_normalized, s.full_name, s.city, s.city_id, s.area,
             s.address, s.data, s.final_status, s.action_date, s.total, ${user}, ${token}, ${importRun}, s.import_row,
             s.blocked, ${source}, ${add(utm, '::jsonb')}, ${add(origin?.externalId ?? null, '::text')},
             lead_entry_point(${importRun}, ${token}, (SELECT kind FROM lead_sources WHERE id = ${source}))
        FROM s
    ), products AS (
      INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
      SELECT ${account}, s.id, x.product_id, x.sku, x.name, x.quantity, x.price, x.position
        FROM ${unnestOf(add, PRODUCT_COLUMNS, columns.products, 'x')} JOIN s ON s.ord = x.lead
    ), history AS (
      INSERT INTO lead_histories (account_id, lead_id, lead_reference, old_status, new_status, changed_by,
                                  changed_by_user_id, note)
      SELECT ${account}, s.id, s.reference, NULL, s.final_status,
             CASE WHEN s.final_status = 'duplicate' OR s.note IS NOT NULL THEN 'system'
                  ELSE ${add(batch.actorName)} END,
             CASE WHEN s.final_status = 'duplicate' OR s.note IS NOT NULL THEN NULL ELSE ${user}::int END,
             s.note
        FROM s
    )
    SELECT coalesce(array_agg(id) FILTER (WHERE final_status = 'confirmed'), '{}') AS confirmed
      FROM s`;
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
): Promise<number[]> {
  if (perBatch) await lockParents(sequelize, transaction, batch);
  // unnest's row estimates put a big batch's statement over jit_above_cost on servers built with JIT, and compiling
  // it (≈ 80 ms for 5,000 leads) costs more than running it. Bitmap scans are off for the statement because the only
  // thing they could serve in it is the duplicate check through a trigram GIN index (pg_trgm answers equality too):
  // PostgreSQL 15, once its statistics give the account some thousands of leads, probed leads_phone_trgm_idx once
  // per phone, ≈ 15 ms each (78 s for a 5,000-lead batch), where the phone btree takes microseconds.
  // SET LOCAL ends with the transaction; both settings that change what else runs are set back right after the
  // insert, so nothing else in the transaction runs without triggers or bitmap scans. Set whatever the batch size,
  // so the statement count does not depend on it.
  await sequelize.query(
    'SET LOCAL jit = off; SET LOCAL enable_bitmapscan = off' +
      (perBatch ? '; SET LOCAL session_replication_role = replica' : ''),
    { transaction },
  );
  const { sql, params } = insertStatement(batch);
  const [{ confirmed }] = await select<{ confirmed: unknown[] }>(sequelize, sql, params, transaction);
  await sequelize.query(
    `SET LOCAL enable_bitmapscan TO DEFAULT${perBatch ? '; SET LOCAL session_replication_role = origin' : ''}`,
    { transaction },
  );
  // bigint[] comes back as strings (pg parses only a single int8 as a number here)
  return confirmed.map(Number);
}
