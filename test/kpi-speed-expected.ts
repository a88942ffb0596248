import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app-context.js';
import { dayIn } from './kpi-expected.js';

/**
 * The speed-to-lead and return-rate figures computed the plain way for tests, from lead_histories and orders (never
 * from leads.first_touch_at, leads.entry_point or the rollup): a lead's first touch is its first history entry after
 * the creation entry that changed the status and names a user (by time, then id). The delay is read in SQL as exact
 * seconds, then rounded up to the resolution of docs/decisions.md, written here as its own list of edges.
 */
const MIN = 60;
const HOUR = 3_600;
const DAY = 86_400;
const range = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) }, (_, i) => from + (i + 1) * step);
/** 1 min to 15 min, 5 min to 1 h, 15 min to 4 h, 1 h to 1 day, 6 h to 7 days, 1 day to 30 days. */
export const EDGES = [
  ...range(0, 15 * MIN, MIN),
  ...range(15 * MIN, HOUR, 5 * MIN),
  ...range(HOUR, 4 * HOUR, 15 * MIN),
  ...range(4 * HOUR, DAY, HOUR),
  ...range(DAY, 7 * DAY, 6 * HOUR),
  ...range(7 * DAY, 30 * DAY, DAY),
];

/** The edge a delay is shown as: the first at or above its whole seconds (negative as 0, past 30 days the last). */
export const edgeOf = (seconds: number) => EDGES.find((e) => e >= Math.ceil(seconds)) ?? EDGES[EDGES.length - 1];

interface LeadRow {
  id: string;
  account_id: number;
  created_at: Date;
  city: string | null;
  status: string;
  import_run_id: number | null;
  created_by_token_id: number | null;
  toucher: number | null;
  /** Exact seconds from creation to the first touch, as text (microseconds kept); null when never touched. */
  delay: string | null;
  confirmer: number | null;
  order_statuses: string[] | null;
  skus: string[] | null;
}

async function readLeads(ctx: AppContext, accountId: number): Promise<LeadRow[]> {
  return ctx.db.sequelize.query<LeadRow>(
    `SELECT l.id, l.account_id, l.created_at, l.city, l.status, l.import_run_id, l.created_by_token_id,
            t.changed_by_user_id AS toucher, extract(epoch FROM t.changed_at - l.created_at)::text AS delay,
            (SELECT h.changed_by_user_id FROM lead_histories h
              WHERE h.lead_id = l.id AND h.new_status = 'confirmed' AND h.old_status IS DISTINCT FROM 'confirmed'
                AND h.changed_by_user_id IS NOT NULL ORDER BY h.changed_at DESC, h.id DESC LIMIT 1) AS confirmer,
            (SELECT array_agg(o.status) FROM orders o WHERE o.lead_id = l.id) AS order_statuses,
            (SELECT array_agg(DISTINCT p.sku) FROM lead_products p WHERE p.lead_id = l.id) AS skus
       FROM leads l
       LEFT JOIN LATERAL (SELECT h.changed_at, h.changed_by_user_id FROM lead_histories h
                           WHERE h.lead_id = l.id AND h.old_status IS NOT NULL AND h.old_status <> h.new_status
                             AND h.changed_by_user_id IS NOT NULL
                           ORDER BY h.changed_at, h.id LIMIT 1) t ON true
      WHERE l.account_id = $1`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

/** Nearest rank: the smallest value that at least `p` of the values do not exceed. */
const nearestRank = (sorted: number[], p: number) => sorted[Math.ceil(p * sorted.length) - 1];

function delayFigures(delays: number[]) {
  const sorted = delays.map(edgeOf).sort((a, b) => a - b);
  return sorted.length
    ? { touched: sorted.length, median_seconds: nearestRank(sorted, 0.5), p90_seconds: nearestRank(sorted, 0.9) }
    : { touched: 0, median_seconds: null, p90_seconds: null };
}

const pct = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : null);

function bandOf(delay: number | null): string {
  if (delay === null) return 'untouched';
  if (delay < 15 * MIN) return 'under_15m';
  if (delay < HOUR) return '15_60m';
  if (delay < 4 * HOUR) return '1_4h';
  return 'later';
}

const sourceOf = (l: LeadRow) => (l.import_run_id ? 'import' : l.created_by_token_id ? 'api' : 'panel');

/** Groups of values by key, largest group first (then key), as [key, values]. */
function grouped<T>(rows: T[], keysOf: (r: T) => string[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const r of rows) for (const k of keysOf(r)) groups.set(k, [...(groups.get(k) ?? []), r]);
  return [...groups];
}
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The speed report of one account over [from, to] (days of `zone`), without the fields of its envelope. */
export async function expectedSpeed(ctx: AppContext, accountId: number, zone: string, from: string, to: string) {
  const leads = (await readLeads(ctx, accountId)).filter((l) => {
    const day = dayIn(l.created_at, zone);
    return day >= from && day <= to;
  });
  const delay = (l: LeadRow) => (l.delay === null ? null : Number(l.delay));
  const touched = leads.filter((l) => l.delay !== null);
  const days: { day: string }[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY * 1000)
    days.push({ day: new Date(t).toISOString().slice(0, 10) });
  const breakdown = (keysOf: (l: LeadRow) => string[]) =>
    grouped(touched, keysOf)
      .map(([key, ls]) => ({ key, ...delayFigures(ls.map((l) => delay(l)!)) }))
      .sort((a, b) => b.touched - a.touched || byKey(a.key, b.key));
  const returns = (keysOf: (l: LeadRow) => string[]) =>
    grouped(
      leads.filter((l) => l.order_statuses),
      keysOf,
    )
      .map(([key, ls]) => {
        const delivered = ls.filter((l) => l.order_statuses!.includes('delivered')).length;
        const returned = ls.filter((l) => l.order_statuses!.includes('returned')).length;
        return { key, delivered, returned, return_rate: pct(returned, delivered + returned) };
      })
      .filter((r) => r.delivered + r.returned > 0)
      .sort((a, b) => b.delivered + b.returned - (a.delivered + a.returned) || byKey(a.key, b.key));
  return {
    days: days.map(({ day }) => ({
      day,
      ...delayFigures(touched.filter((l) => dayIn(l.created_at, zone) === day).map((l) => delay(l)!)),
    })),
    by_agent: breakdown((l) => [String(l.toucher)]),
    by_source: breakdown((l) => [sourceOf(l)]),
    bands: ['under_15m', '15_60m', '1_4h', 'later', 'untouched'].map((band) => {
      const inBand = leads.filter((l) => bandOf(delay(l)) === band);
      const confirmed = inBand.filter((l) => l.status === 'confirmed').length;
      return { band, leads: inBand.length, confirmed, confirmation_rate: pct(confirmed, inBand.length) };
    }),
    returns: {
      city: returns((l) => [l.city?.trim() || '(none)']),
      product: returns((l) => (l.skus?.length ? l.skus : ['(none)'])),
      agent: returns((l) => [l.confirmer === null ? '(nobody)' : String(l.confirmer)]),
    },
  };
}
