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
 * Nearest-rank percentiles of histograms `h (key, bucket, leads)`, one row per key: the first bucket whose running
 * count reaches ⌈p · touched⌉ (the smallest edge that at least p of the touched leads do not exceed).
 */
const percentiles = (histograms: string) => `
  WITH h AS (${histograms}),
  c AS (SELECT key, bucket, sum(leads) OVER (PARTITION BY key ORDER BY bucket) AS upto,
               sum(leads) OVER (PARTITION BY key) AS touched FROM h)
  SELECT key, max(touched)::int AS touched,
         min(bucket) FILTER (WHERE upto >= ceil(touched * 0.5))::int AS p50,
         min(bucket) FILTER (WHERE upto >= ceil(touched * 0.9))::int AS p90
    FROM c GROUP BY key`;

/** The speed-to-lead and return-rate reads (src/stats/kpi.service.ts speed); the rollup is kept by SQL functions. */
export function createKpiSpeedRepository(sequelize: Sequelize) {
  return {
    /** Per day of the range (the day as `YYYY-MM-DD` key), from the days' own histograms. */
    delayDays(r: KpiRange): Promise<DelayRow[]> {
      const { params, add } = placeholders();
      const account = r.accountId ? `account_id = ${add(r.accountId)} AND ` : '';
      return select<DelayRow>(
        sequelize,
        percentiles(`
          SELECT (DATE '2000-01-01' + block)::text AS key, bucket, sum(leads) AS leads FROM kpi_delays
           WHERE ${account}span = 0 AND block BETWEEN ${add(dayNumber(r.from))} AND ${add(dayNumber(r.to))}
             AND dimension = 'all'
           GROUP BY block, bucket`),
        params,
      );
    },

    /** Per key of `agent` (the first toucher) or `entry` over the whole range: its aligned blocks summed. */
    delayBreakdown(r: KpiRange, dimension: 'agent' | 'entry'): Promise<(DelayRow & { label: string })[]> {
      const { params, add } = placeholders();
      const { spans, blocks } = blocksOf(dayNumber(r.from), dayNumber(r.to));
      const account = r.accountId ? `account_id = ${add(r.accountId)} AND ` : '';
      return select<DelayRow & { label: string }>(
        sequelize,
        `WITH b AS (${percentiles(`
           SELECT key, bucket, sum(leads) AS leads FROM kpi_delays
            WHERE ${account}(span, block) IN (SELECT * FROM unnest(${add(spans, '::smallint[]')},
                                                                    ${add(blocks, '::int[]')}))
              AND dimension = ${add(dimension)}
            GROUP BY key, bucket`)}
            ORDER BY touched DESC, key COLLATE "C" LIMIT ${add(KPI_BREAKDOWN_ROWS)})
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
