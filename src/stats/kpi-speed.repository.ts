import type { Sequelize } from 'sequelize';
import { placeholders, select } from '../query.js';
import { labelSql, type KpiRange } from './kpi.repository.js';
import { KPI_BREAKDOWN_ROWS } from './kpi.schemas.js';
import { blocksOf, dayNumber, type ReturnBreakdown } from './kpi-speed.schemas.js';

/** A group's touched leads and the buckets (indexes into DELAY_EDGES) of its median and 90th percentile. */
export interface DelayRow {
  key: string;
  touched: number;
  p50: number;
  p90: number;
}

export interface CountRow {
  key: string;
  label: string;
  leads: number;
  confirmed: number;
  delivered: number;
  returned: number;
}

/**
 * Nearest-rank percentiles of histograms `h (g, bucket, leads)`, one row per group `g`: the first bucket whose running
 * count reaches ⌈p · touched⌉ (the smallest edge that at least p of the touched leads do not exceed). `key` is `g`
 * written by `keyOf`, after the windows (a group read in index order is windowed without a sort).
 */
const percentiles = (histograms: string, keyOf = 'g') => `
  WITH h AS (${histograms}),
  c AS (SELECT g, bucket, sum(leads) OVER (PARTITION BY g ORDER BY bucket) AS upto,
               sum(leads) OVER (PARTITION BY g) AS touched FROM h)
  SELECT ${keyOf} AS key, max(touched)::int AS touched,
         min(bucket) FILTER (WHERE upto >= ceil(touched * 0.5))::int AS p50,
         min(bucket) FILTER (WHERE upto >= ceil(touched * 0.9))::int AS p90
    FROM c GROUP BY g`;

/** The speed-to-lead and return-rate reads (src/stats/kpi.service.ts speed); the rollup is kept by SQL functions. */
export function createKpiSpeedRepository(sequelize: Sequelize) {
  return {
    /**
     * Per day of the range (the day as `YYYY-MM-DD` key): an account's from the per-day figures the fold keeps; every
     * account's (an admin's) from the days' histograms summed across accounts.
     */
    delayDays(r: KpiRange): Promise<DelayRow[]> {
      const { params, add } = placeholders();
      const [first, last] = [add(dayNumber(r.from)), add(dayNumber(r.to))];
      const sql = r.accountId
        ? `SELECT day::text AS key, touched, p50, p90 FROM kpi_delay_days
            WHERE account_id = ${add(r.accountId)} AND day BETWEEN DATE '2000-01-01' + ${first}::int
              AND DATE '2000-01-01' + ${last}::int`
        : percentiles(
            `SELECT block AS g, bucket, sum(leads) AS leads FROM kpi_delays
              WHERE dimension = 'all' AND span = 0 AND block BETWEEN ${first} AND ${last}
              GROUP BY block, bucket`,
            "(DATE '2000-01-01' + g)::text",
          );
      return select<DelayRow>(sequelize, sql, params);
    },

    /** Per key of `agent` (the first toucher) or `entry` over the whole range: its aligned blocks summed. */
    delayBreakdown(r: KpiRange, dimension: 'agent' | 'entry'): Promise<(DelayRow & { label: string })[]> {
      const { params, add } = placeholders();
      const { spans, blocks } = blocksOf(dayNumber(r.from), dayNumber(r.to));
      const account = r.accountId ? `k.account_id = ${add(r.accountId)} AND ` : '';
      const range = `unnest(${add(spans, '::smallint[]')}, ${add(blocks, '::int[]')}) AS u(span, block)`;
      return select<DelayRow & { label: string }>(
        sequelize,
        `WITH b AS (${percentiles(`
           SELECT k.key AS g, k.bucket, sum(k.leads) AS leads
             FROM ${range} JOIN kpi_delays k ON k.span = u.span AND k.block = u.block
            WHERE ${account}k.dimension = ${add(dimension)}
            GROUP BY k.key, k.bucket`)}
            ORDER BY touched DESC, g COLLATE "C" LIMIT ${add(KPI_BREAKDOWN_ROWS)})
         SELECT b.*, coalesce(${labelSql(dimension === 'agent' ? 'agent' : 'city', null)}, b.key) AS label
           FROM b ORDER BY b.touched DESC, b.key COLLATE "C"`,
        params,
      );
    },

    /** Leads and confirmed per delay band, from kpi_daily. */
    bands(r: KpiRange): Promise<CountRow[]> {
      return counts(sequelize, r, 'delay', 'leads');
    },

    /** Delivered and returned per city, product or confirmer, largest first. */
    returns(r: KpiRange, by: ReturnBreakdown): Promise<CountRow[]> {
      return counts(sequelize, r, by === 'agent' ? 'confirmer' : by, 'shipped');
    },
  };
}
export type KpiSpeedRepository = ReturnType<typeof createKpiSpeedRepository>;

/**
 * A kpi_daily dimension summed per key over the range, the largest first by `size` (leads for the bands, delivered +
 * returned for the return rate), with labels.
 */
function counts(sequelize: Sequelize, r: KpiRange, dimension: string, size: 'leads' | 'shipped'): Promise<CountRow[]> {
  const { params, add } = placeholders();
  const account = r.accountId ? `account_id = ${add(r.accountId)} AND ` : '';
  const by = dimension === 'confirmer' ? 'agent' : dimension === 'product' ? 'product' : 'city';
  const label = labelSql(by, r.accountId && by === 'product' ? add(r.accountId) : null);
  const days = `day BETWEEN ${add(r.from, '::date')} AND ${add(r.to, '::date')}`;
  return select<CountRow>(
    sequelize,
    `WITH b AS (
       SELECT key, sum(leads)::int AS leads, sum(confirmed)::int AS confirmed, sum(delivered)::int AS delivered,
              sum(returned)::int AS returned, sum(${size === 'leads' ? 'leads' : 'delivered + returned'}) AS size
         FROM kpi_daily WHERE ${account}dimension = ${add(dimension)} AND ${days}
        GROUP BY key HAVING sum(${size === 'leads' ? 'leads' : 'delivered + returned'}) > 0
        ORDER BY size DESC, key COLLATE "C" LIMIT ${add(KPI_BREAKDOWN_ROWS)})
     SELECT b.key, b.leads, b.confirmed, b.delivered, b.returned, coalesce(${label}, b.key) AS label
       FROM b ORDER BY b.size DESC, b.key COLLATE "C"`,
    params,
  );
}
