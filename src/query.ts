import { type Model, type ModelStatic, type Sequelize, type Transaction } from 'sequelize';
import type { Actor } from './actor.js';
import { NotFoundError, type FieldErrors } from './errors.js';
import { offsetOf } from './pagination.js';
import { addError } from './validation.js';
import { accountScope } from './policy.js';
import { rawQuery } from './db/index.js';

/** `%term%` with LIKE wildcards in the term escaped. */
export function likeContains(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The spec's `search_by` / `keyWord` rule, shared by the lead and order lists: reference exact, phone by digits
 * contained, full_name and city case-insensitively contained (trigram indexes), tracking_number exact.
 */
export function searchClause(alias: string, searchBy: string, keyWord: string, p: (v: unknown) => string): string {
  switch (searchBy) {
    case 'phone': {
      const digits = keyWord.replace(/\D/g, '');
      return digits ? `${alias}.phone_normalized LIKE ${p(likeContains(digits))}` : 'false';
    }
    case 'full_name':
      return `${alias}.full_name ILIKE ${p(likeContains(keyWord))}`;
    case 'city':
      return `${alias}.city ILIKE ${p(likeContains(keyWord))}`;
    case 'tracking_number':
      return `${alias}.tracking_number = ${p(keyWord)}`;
    default:
      return `${alias}.reference = ${p(keyWord.toUpperCase())}`;
  }
}

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

/** Rows of a SELECT with bind parameters ($1, $2, …), inside `transaction` when given. */
export function select<T extends object>(
  sequelize: Sequelize,
  sql: string,
  bind: unknown[],
  transaction?: Transaction,
): Promise<T[]> {
  return rawQuery<T>(sequelize, sql, bind, transaction);
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
 * first row of the requested page. Past it the total is a lower bound (`total_exact: false`), so a search that matches
 * half a million rows costs at most this many index entries per request. Documented in the OpenAPI meta.
 */
export const SEARCH_COUNT_LIMIT = 10_000;

/**
 * A list statement: `SELECT ${columns} FROM ${from} WHERE ${where} ORDER BY ${orderBy}`, placeholders from $1;
 * `exact`, when the filters are only an account and a status, says where its exact total is kept.
 */
export interface ListStatement {
  columns: string;
  from: string;
  where: string;
  params: unknown[];
  orderBy: string;
  exact: ExactCount | null;
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

/**
 * One page of a list and its total (exact from `row_counts`, or counted up to SEARCH_COUNT_LIMIT rows past the page's
 * start): one statement, the total a subquery PostgreSQL runs once beside the page, so a list request costs one round
 * trip. A page past the end has no row to carry the total: the total alone is then asked for.
 */
export async function selectPage<T extends object>(
  sequelize: Sequelize,
  q: ListStatement,
  page: number,
  perPage: number,
): Promise<{ rows: T[]; total: number; totalExact: boolean }> {
  const offset = offsetOf(page, perPage);
  const bound = offset + SEARCH_COUNT_LIMIT;
  // the total's subquery, its placeholders appended to `params` (which holds the list's own when it uses them)
  const totalOf = (params: unknown[]) => {
    const add = (v: unknown) => `$${params.push(v)}`;
    return q.exact
      ? exactTotalSql(q.exact, add)
      : `(SELECT count(*)::int FROM (SELECT 1 FROM ${q.from} WHERE ${q.where} LIMIT ${add(bound + 1)}) c)`;
  };
  const params = [...q.params];
  const withTotal = await select<T & { [TOTAL]: number }>(
    sequelize,
    `SELECT ${q.columns}, ${totalOf(params)} AS ${TOTAL} FROM ${q.from} WHERE ${q.where}
      ORDER BY ${q.orderBy} LIMIT $${params.push(perPage)} OFFSET $${params.push(offset)}`,
    params,
  );
  const alone = q.exact ? [] : [...q.params];
  const counted =
    withTotal[0]?.[TOTAL] ??
    (await select<{ [TOTAL]: number }>(sequelize, `SELECT ${totalOf(alone)} AS ${TOTAL}`, alone))[0][TOTAL];
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
