import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Sequelize } from 'sequelize';

/**
 * One list request of the bench and who sends it: the seller's bearer token (REST), or a dashboard session, the
 * seller's (the only lead list with a status filter) or an admin's (the only lists of every account).
 */
export interface ListCase {
  list: 'leads' | 'orders' | 'lead histories' | 'order histories';
  name: string;
  path: string;
  who: 'token' | 'seller session' | 'admin session';
}

/** The search terms the cases use, read from the filled rows (see list-fill.ts for how they are spread). */
export async function listCases(raw: pg.Client, accountId: number): Promise<ListCase[]> {
  const { rows } = await raw.query<{ phone: string; tracking: string }>(
    `SELECT l.phone_normalized AS phone, o.tracking_number AS tracking
       FROM leads l JOIN orders o ON o.lead_id = l.id
      WHERE l.account_id = $1 AND o.tracking_number IS NOT NULL ORDER BY l.created_at DESC LIMIT 1 OFFSET 5000`,
    [accountId],
  );
  const { phone, tracking } = rows[0];
  const ref = (
    await raw.query('SELECT reference FROM leads WHERE account_id = $1 AND phone_normalized = $2', [accountId, phone])
  ).rows[0].reference as string;
  const since = encodeURIComponent(new Date(Date.now() - 3600_000).toISOString());
  const searches = (prefix: string) => [
    ['search phone, 7 digits (≈ 1 row)', `${prefix}search_by=phone&keyWord=${phone.slice(4, 11)}`],
    ['search phone, 4 digits (hundreds)', `${prefix}search_by=phone&keyWord=${phone.slice(-4)}`],
    ['search phone 2126 (every row)', `${prefix}search_by=phone&keyWord=2126`],
    ['search full_name "asmae ouzaki" (≈ 0.02 %)', `${prefix}search_by=full_name&keyWord=asmae%20ouzaki`],
    ['search full_name "hicham" (≈ 2 %)', `${prefix}search_by=full_name&keyWord=hicham`],
    ['search full_name "mohamed" (≈ 18 %)', `${prefix}search_by=full_name&keyWord=mohamed`],
    ['search city "safi" (5 %)', `${prefix}search_by=city&keyWord=safi`],
    ['search city "casablanca" (25 %)', `${prefix}search_by=city&keyWord=casablanca`],
  ];
  const pages = (path: string, sep: string) => [
    ['first page', path],
    ['page 100', `${path}${sep}page=100`],
    ['page 1000', `${path}${sep}page=1000`],
  ];
  const of = (list: ListCase['list'], who: ListCase['who'], cases: string[][]) =>
    cases.map(([name, path]) => ({ list, name, path, who }));
  return [
    ...of('leads', 'token', [
      ...pages('/leads', '?'),
      ...searches('/leads?'),
      ['search reference', `/leads?search_by=reference&keyWord=${ref}`],
    ]),
    ...of('leads', 'seller session', [
      ...pages('/leads?status=confirmed', '&').map(([n, p]) => [`status confirmed, ${n}`, p]),
    ]),
    ...of('orders', 'token', [
      ...pages('/orders', '?'),
      ...pages('/orders?status=returned', '&').map(([n, p]) => [`status returned, ${n}`, p]),
      ...searches('/orders?'),
      ['search reference', `/orders?search_by=reference&keyWord=OB${ref.slice(2)}`],
      ['search tracking_number', `/orders?search_by=tracking_number&keyWord=${tracking}`],
    ]),
    ...of('lead histories', 'token', [
      ...pages('/lead-histories', '?'),
      ['lead_reference', `/lead-histories?lead_reference=${ref}`],
      ['since an hour ago', `/lead-histories?since=${since}`],
    ]),
    ...of('order histories', 'token', [
      ...pages('/order-histories', '?'),
      ['order_reference', `/order-histories?order_reference=OB${ref.slice(2)}`],
      ['since an hour ago', `/order-histories?since=${since}`],
    ]),
    ...of('leads', 'admin session', [
      ...pages('/leads', '?').map(([n, p]) => [`admin, every account, ${n}`, p]),
      ['admin, every account, status confirmed', '/leads?status=confirmed'],
      ['admin, every account, status confirmed, page 1000', '/leads?status=confirmed&page=1000'],
    ]),
    ...of('lead histories', 'admin session', [['admin, every account, first page', '/lead-histories']]),
    ...of('order histories', 'admin session', [['admin, every account, first page', '/orders-histories']]),
  ];
}

/** A list statement the app sent, with its bind values. */
interface Sent {
  sql: string;
  bind: unknown[];
}
const LIST_SQL = /\b(leads|orders|lead_histories|order_histories|row_counts)\b/;

/**
 * The statements the app sends for one request, caught through Sequelize's `logging` (plain-pg statements go there
 * too, src/db/index.ts): the list's SELECTs, without the session's or the token's lookups.
 */
export async function statementsOf(sequelize: Sequelize, request: () => Promise<unknown>): Promise<Sent[]> {
  const options = (sequelize as unknown as { options: { logging: unknown } }).options;
  const before = options.logging;
  const sent: Sent[] = [];
  options.logging = (sql: string, o?: { bind?: unknown[] }) => {
    const text = sql.replace(/^Executing \([^)]*\): /, '');
    if (/^\s*(SELECT|WITH)\b/i.test(text) && LIST_SQL.test(text)) sent.push({ sql: text, bind: o?.bind ?? [] });
  };
  try {
    await request();
  } finally {
    options.logging = before;
  }
  return sent;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

export interface Timing {
  p50: number;
  p99: number;
}

/**
 * `runs` timings of the request over HTTP and of its statements replayed over pg (in parallel, on a pool of two, as
 * the app may send them), interleaved, after `warm` unmeasured rounds.
 */
export async function timeCase(
  request: () => Promise<unknown>,
  pool: pg.Pool,
  sent: Sent[],
  runs = 100,
  warm = 10,
): Promise<{ app: Timing; raw: Timing }> {
  const app: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < warm + runs; i++) {
    let t = performance.now();
    await request();
    if (i >= warm) app.push(performance.now() - t);
    t = performance.now();
    await Promise.all(sent.map((s) => pool.query(s.sql, s.bind)));
    if (i >= warm) raw.push(performance.now() - t);
  }
  const of = (xs: number[]) => ({ p50: pct(xs, 0.5), p99: pct(xs, 0.99) });
  return { app: of(app), raw: of(raw) };
}
