import { QueryTypes, type Model, type ModelStatic, type Sequelize, type Transaction } from 'sequelize';
import type { Actor } from './actor.js';
import { NotFoundError, type FieldErrors } from './errors.js';
import { offsetOf } from './pagination.js';
import { addError } from './validation.js';
import { accountScope } from './policy.js';
import { readQuery } from './db/index.js';

/** A value that can be a row id (an integer column): anything else names no row, and PostgreSQL would refuse it. */
export const isRowId = (id: number): boolean => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647;

/** The distinct ids of a bulk request; one that is not a positive integer id makes the whole request "not found". */
export function idsOrNotFound(ids: unknown[]): number[] {
  const wanted = [...new Set(ids.map(Number))];
  if (!wanted.every(isRowId)) throw new NotFoundError();
  return wanted;
}

/** One lead or order by reference or id, inside the actor's account; anything else is "not found". */
export async function findInScope<M extends Model>(
  model: ModelStatic<M>,
  actor: Actor,
  key: { reference: string } | { id: number },
): Promise<M> {
  const where = 'reference' in key ? { reference: String(key.reference).toUpperCase() } : { id: Number(key.id) };
  if ('id' in where && !isRowId(where.id as number)) throw new NotFoundError();
  const row = await model.findOne({ where: { ...where, ...accountScope(actor) } as never });
  if (!row) throw new NotFoundError();
  return row;
}

/**
 * Bind parameters named where they are made: `add(value, '::int[]')` appends the value and answers its placeholder
 * (`$7::int[]`), so a statement reads with names instead of positions. `params` is the bind array, in order.
 */
export function placeholders(): { params: unknown[]; add: (value: unknown, cast?: string) => string } {
  const params: unknown[] = [];
  return { params, add: (value, cast = '') => `$${params.push(value)}${cast}` };
}

/** Rows of a statement with bind parameters ($1, $2, …): in `transaction` through Sequelize, else on the read pool. */
export function select<T extends object>(
  sequelize: Sequelize,
  sql: string,
  bind: unknown[],
  transaction?: Transaction,
): Promise<T[]> {
  return transaction
    ? sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction })
    : readQuery<T>(sequelize, sql, bind);
}

/** A table whose rows are counted per account (and per status for leads and orders) in `row_counts`. */
export type CountedList = 'leads' | 'orders' | 'lead_histories' | 'order_histories';

/** An exact total read from `row_counts`: the rows of `list` in `accountId` (none: every account), of one status. */
export interface ExactCount {
  list: CountedList;
  accountId?: number;
  status?: string;
}

/**
 * How far a total that `row_counts` cannot answer (a search, a date range) is counted: up to this many rows from the
 * first row of the requested page. Past it the total is a lower bound (`total_exact: false`). Documented in the OpenAPI
 * meta and docs/api.md. The bound is what a search costs when it matches many rows: finding 1,001 matches of a
 * trigram term took 3–9 ms at 1 M leads (10,000 took 20–45 ms), docs/performance.md "Lists at 1 M rows".
 */
export const SEARCH_COUNT_LIMIT = 500;

/**
 * A list: `SELECT ${columns} FROM ${from} WHERE ${where}`, newest first (`${sortedBy} DESC, ${key} DESC`),
 * placeholders from $1; `exact`, when the filters are only an account and a status, says where its exact total is kept.
 * A list of every account (an admin's) is sorted by `key` alone (see newestFirst).
 */
export interface ListStatement {
  columns: string;
  /** The table and the alias the other parts name it by (`leads l`). */
  from: string;
  /** The row key (`l.id`), which also orders rows of the same time. */
  key: string;
  /** The time rows are listed by, newest first (`l.created_at`), or `key` itself. */
  sortedBy: string;
  where: string;
  params: unknown[];
  exact: ExactCount | null;
}

/**
 * A list's order, newest first: within one account by its time column, which the (account_id, time DESC, id DESC)
 * indexes serve; across every account (an admin's list) by the row key, which the primary key serves. The key follows
 * the order rows were written in, as the time does (it differs only between transactions that overlapped). An index on
 * the time alone would serve that list too, but the planner also walks it for one account's list when the account holds
 * most rows, skipping every newer row of the others (measured: 42,654 rows, 17 ms, for a search's first page).
 */
export function newestFirst(accountId: number | undefined, time: string, key: string) {
  return { key, sortedBy: accountId ? time : key };
}

/** The subquery of the exact number of rows `c` names: the sum of their appended counts (row-counts migration). */
function exactTotalSql(c: ExactCount, add: (v: unknown) => string): string {
  const conds = [`list = ${add(c.list)}`];
  if (c.accountId !== undefined) conds.push(`account_id = ${add(c.accountId)}`);
  if (c.status !== undefined) conds.push(`status = ${add(c.status)}`);
  return `(SELECT coalesce(sum(n), 0)::int FROM row_counts WHERE ${conds.join(' AND ')})`;
}

/** The exact number of rows `c` names, read from `row_counts`. */
export async function exactTotal(sequelize: Sequelize, c: ExactCount, transaction?: Transaction): Promise<number> {
  const { params, add } = placeholders();
  const [{ total }] = await select<{ total: number }>(
    sequelize,
    `SELECT ${exactTotalSql(c, add)} AS total`,
    params,
    transaction,
  );
  return total;
}

/** The name the page's statement gives its total; no list has a column of that name. */
const TOTAL = 'list_total__';

/** Bind values and a function that appends one and answers its placeholder. */
function bindFrom(values: unknown[]) {
  const params = [...values];
  return { params, add: (v: unknown) => `$${params.push(v)}` };
}

/**
 * The total of a list as an expression, its placeholders added through `add`: the kept count (row_counts), or the
 * number of rows in `m`, the first `bound + 1` matching rows in any order, which `with` defines.
 */
function totalParts(q: ListStatement, add: (v: unknown) => string, bound: number) {
  if (q.exact) return { with: '', total: exactTotalSql(q.exact, add), limit: '' };
  const limit = `${add(bound + 1)}::int`;
  return {
    with: `WITH m AS MATERIALIZED (SELECT ${q.key} AS id, ${q.sortedBy} AS at FROM ${q.from}
      WHERE ${q.where} LIMIT ${limit}), n AS (SELECT count(*)::int AS total FROM m) `,
    total: '(SELECT total FROM n)',
    limit,
  };
}

/** From this many skipped rows on, a page with a kept total chooses its rows' keys first (pageStatements). */
const KEYS_FIRST_FROM = 300;

/**
 * The statement of one page with its total in every row, and the statement of the total alone (for a page past the
 * end, which has no row to carry it), each with its bind values; the bench replays them.
 *
 * The page's rows are chosen by key first (`key IN (… LIMIT … OFFSET …)`), so the rows OFFSET skips are read from the
 * index alone (an index-only scan where the filters are in the index) and only the page's own rows from the table.
 * A total that row_counts keeps is a subquery beside the page. Otherwise the statement first takes up to `bound + 1`
 * matching rows in any order (`m`: the cheapest plan that stops early, a bitmap of a trigram index or a scan), which
 * gives the total; when that is all of them, the page is sorted from them, so a rare search term runs its index scan
 * once; when there are more, matches are dense enough that walking the newest rows finds the page quickly.
 */
export function pageStatements(q: ListStatement, offset: number, perPage: number, bound: number) {
  const order = q.sortedBy === q.key ? `${q.key} DESC` : `${q.sortedBy} DESC, ${q.key} DESC`;
  const page = bindFrom(q.params);
  const t = totalParts(q, page.add, bound);
  const slice = (by: string) => `ORDER BY ${by} LIMIT ${page.add(perPage)} OFFSET ${page.add(offset)}`;
  // a kept total and a near page: the rows themselves, newest first (choosing keys first costs PostgreSQL twice the
  // CPU of a first page, for no rows to skip)
  if (q.exact && offset < KEYS_FIRST_FROM) {
    const alone = bindFrom([]);
    return {
      page: {
        sql: `SELECT ${q.columns}, ${t.total} AS ${TOTAL} FROM ${q.from} WHERE ${q.where} ${slice(order)}`,
        params: page.params,
      },
      total: { sql: `SELECT ${exactTotalSql(q.exact, alone.add)} AS ${TOTAL}`, params: alone.params },
    };
  }
  const keys = q.exact
    ? `SELECT ${q.key} FROM ${q.from} WHERE ${q.where} ${slice(order)}`
    : `(SELECT id FROM m WHERE ${t.total} < ${t.limit} ${slice('at DESC, id DESC')})
        UNION ALL (SELECT ${q.key} FROM ${q.from} WHERE ${t.total} >= ${t.limit} AND (${q.where}) ${slice(order)})`;
  const alone = bindFrom(q.exact ? [] : q.params);
  const a = totalParts(q, alone.add, bound);
  return {
    page: {
      sql: `${t.with}SELECT ${q.columns}, ${t.total} AS ${TOTAL} FROM ${q.from}
        WHERE ${q.key} IN (${keys}) ORDER BY ${order}`,
      params: page.params,
    },
    total: { sql: `${a.with}SELECT ${a.total} AS ${TOTAL}`, params: alone.params },
  };
}

/**
 * One page of a list and its total (exact from `row_counts`, or counted up to SEARCH_COUNT_LIMIT rows past the page's
 * start), in one statement (pageStatements): a list request costs one round trip, two for a page past the end.
 */
export async function selectPage<T extends object>(
  sequelize: Sequelize,
  q: ListStatement,
  page: number,
  perPage: number,
): Promise<{ rows: T[]; total: number; totalExact: boolean }> {
  const offset = offsetOf(page, perPage);
  const bound = offset + SEARCH_COUNT_LIMIT;
  const s = pageStatements(q, offset, perPage, bound);
  const withTotal = await select<T & { [TOTAL]: number }>(sequelize, s.page.sql, s.page.params);
  const counted =
    withTotal[0]?.[TOTAL] ?? (await select<{ [TOTAL]: number }>(sequelize, s.total.sql, s.total.params))[0][TOTAL];
  const rows = withTotal.map(({ [TOTAL]: _total, ...row }) => row as unknown as T);
  return !q.exact && counted > bound
    ? { rows, total: bound, totalExact: false }
    : { rows, total: counted, totalExact: true };
}

/** How a bulk write names its rows: by reference (REST, within the token's account) or by id (panel, dashboard). */
export type RowKey = 'references' | 'ids';

/** A table whose rows a bulk write locks, and the columns it reads from them (`R`, their row type). */
export interface LockSpec<R> {
  table: 'leads' | 'orders';
  columns: string;
  /** Only carries the row type. */
  row?: R;
}

/**
 * Locks the rows of `spec.table` named by reference or id, FOR UPDATE in id order, within `accountId` when given (an
 * admin's scope has none). An id outside the id column's range names no row. Every key that names no row becomes the
 * 422 error "The selected <path> is invalid." at `path(i)`; the caller throws them with its own.
 */
export async function lockByKeys<R extends { id: number; reference: string }>(
  sequelize: Sequelize,
  transaction: Transaction,
  spec: LockSpec<R>,
  q: { by: RowKey; keys: (string | number)[]; accountId?: number; path: (i: number) => string },
): Promise<{ byKey: Map<string, R>; errors: FieldErrors }> {
  const column = q.by === 'references' ? 'reference' : 'id';
  const wanted = q.by === 'references' ? q.keys : q.keys.filter((k) => isRowId(k as number));
  const found = await select<R>(
    sequelize,
    `SELECT ${spec.columns} FROM ${spec.table} WHERE ${column} = ANY($1::${q.by === 'references' ? 'text' : 'bigint'}[])
      ${q.accountId ? 'AND account_id = $2' : ''} ORDER BY id FOR UPDATE`,
    q.accountId ? [wanted, q.accountId] : [wanted],
    transaction,
  );
  const byKey = new Map(found.map((r) => [String(r[column]), r]));
  const errors: FieldErrors = {};
  q.keys.forEach((k, i) => {
    if (!byKey.has(String(k))) addError(errors, q.path(i), `The selected ${q.path(i)} is invalid.`);
  });
  return { byKey, errors };
}

/** What a retention job deletes per statement: a day of a busy table goes in short statements, none locking long. */
export const DELETE_BATCH = 5_000;

/**
 * Repeats `deleteBatch` (deleting at most `size` rows, answering how many went) until a batch comes back short;
 * answers the total (the retention jobs of the intake log and the idempotency keys).
 */
export async function deleteInBatches(deleteBatch: (size: number) => Promise<number>, size = DELETE_BATCH) {
  let removed = 0;
  for (let n = size; n === size; removed += n) n = await deleteBatch(size);
  return removed;
}

/** Rows with `total` (count(*) over the filter) to a page; past the last page the count is asked alone. */
export async function paged<T extends object>(
  sequelize: Sequelize,
  sql: { from: string; columns: string; order: string },
  bind: unknown[],
  page: number,
  perPage: number,
): Promise<{ rows: T[]; total: number }> {
  const n = bind.length;
  const rows = await select<T & { total__: number }>(
    sequelize,
    `SELECT ${sql.columns}, count(*) OVER ()::int AS total__ ${sql.from} ORDER BY ${sql.order}
     OFFSET $${n + 1} LIMIT $${n + 2}`,
    [...bind, (page - 1) * perPage, perPage],
  );
  if (rows.length || page === 1)
    return { rows: rows.map(({ total__: _t, ...r }) => r as unknown as T), total: rows[0]?.total__ ?? 0 };
  const count = `SELECT count(*)::int AS total FROM (SELECT 1 ${sql.from}) AS f`;
  const [{ total }] = await select<{ total: number }>(sequelize, count, bind);
  return { rows: [], total };
}
