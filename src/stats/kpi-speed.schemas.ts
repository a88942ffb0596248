import { msOf } from './kpi.schemas.js';

/**
 * The resolution of speed-to-lead percentiles (docs/decisions.md "Speed to lead"): from each limit up, the step of the
 * buckets above the previous limit. The SQL function `kpi_delay_bucket` (migration 20261208300000) draws the same
 * buckets; test/integration/kpi-speed.test.ts holds the two together.
 */
export const DELAY_STEPS: readonly (readonly [limit: number, step: number])[] = [
  [900, 60], // 1 minute up to 15 minutes
  [3_600, 300], // 5 minutes up to 1 hour
  [14_400, 900], // 15 minutes up to 4 hours
  [86_400, 3_600], // 1 hour up to 1 day
  [604_800, 21_600], // 6 hours up to 7 days
  [2_592_000, 86_400], // 1 day up to 30 days
];

/** The upper edge of every bucket, in seconds: a delay is shown as the edge of its bucket (rounded up). */
export const DELAY_EDGES: readonly number[] = (() => {
  const edges: number[] = [];
  let from = 0;
  for (const [limit, step] of DELAY_STEPS) {
    for (let edge = from + step; edge <= limit; edge += step) edges.push(edge);
    from = limit;
  }
  return edges;
})();

/** The confirmation-rate bands, in the page's order; `untouched`: no person has changed the lead's status yet. */
export const DELAY_BANDS = ['under_15m', '15_60m', '1_4h', 'later', 'untouched'] as const;
export type DelayBand = (typeof DELAY_BANDS)[number];

/** The breakdowns of the return rate (`agent`: the person who confirmed the lead). */
export const RETURN_BREAKDOWNS = ['city', 'product', 'agent'] as const;
export type ReturnBreakdown = (typeof RETURN_BREAKDOWNS)[number];

/** Median and 90th percentile of the delay to the first touch, in seconds (bucket edges); null when none touched. */
export interface DelayFigures {
  touched: number;
  median_seconds: number | null;
  p90_seconds: number | null;
}

export interface SpeedReport {
  from: string;
  to: string;
  account_id: number | null;
  time_zone: string;
  as_of: string;
  /** Leads created each day (account's zone) and touched: the delay's percentiles among them. */
  days: Array<{ day: string } & DelayFigures>;
  /** By the person who touched the lead first (`(deleted)`: a user removed since). */
  by_agent: Array<{ key: string; label: string } & DelayFigures>;
  /** By the lead's entry point: import, api, panel. */
  by_source: Array<{ key: string; label: string } & DelayFigures>;
  /** Leads of the period by the delay of their first touch, and how many are confirmed. */
  bands: Array<{ band: DelayBand; leads: number; confirmed: number; confirmation_rate: number | null }>;
  /** returned / (delivered + returned) of the period's leads' orders, in percent. */
  returns: Record<
    ReturnBreakdown,
    Array<{ key: string; label: string; delivered: number; returned: number; return_rate: number | null }>
  >;
}

/** The day number of the rollup's blocks (days since 2000-01-01, as the migration counts them). */
export const dayNumber = (day: string) => Math.round((msOf(day) - msOf('2000-01-01')) / 86_400_000);

/** The largest block span the rollup keeps (2^9 = 512 days, more than a report's 366). */
const MAX_SPAN = 9;

/**
 * The inclusive day numbers [first, last] as aligned blocks (span s covers the days b·2^s to (b+1)·2^s − 1): at most
 * two per span, so 18 for any report.
 */
export function blocksOf(first: number, last: number): { spans: number[]; blocks: number[] } {
  const spans: number[] = [];
  const blocks: number[] = [];
  let at = first;
  while (at <= last) {
    let span = 0;
    while (span < MAX_SPAN && at % 2 ** (span + 1) === 0 && at + 2 ** (span + 1) - 1 <= last) span++;
    spans.push(span);
    blocks.push(at / 2 ** span);
    at += 2 ** span;
  }
  return { spans, blocks };
}
