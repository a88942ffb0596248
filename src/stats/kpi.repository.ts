import { QueryTypes, type Sequelize } from 'sequelize';
import { placeholders, select } from '../query.js';
import { KPI_BREAKDOWN_ROWS, type KpiBreakdown } from './kpi.schemas.js';

/** The rollup rows a report reads: one account (or every account, for an admin) over an inclusive range of days. */
export interface KpiRange {
  accountId?: number;
  from: string;
  to: string;
}

export interface KpiStatusDay {
  day: string;
  status: string;
  leads: number;
  delivered: number;
}

export interface KpiBreakdownRow {
  key: string;
  label: string;
  leads: number;
  confirmed: number;
  delivered: number;
}

/** `account_id = … AND dimension = … AND day BETWEEN …`: a range of kpi_daily's primary key. */
function rangeWhere(r: KpiRange, dimension: string, add: (v: unknown, cast?: string) => string): string {
  const account = r.accountId ? `account_id = ${add(r.accountId)} AND ` : '';
  return `${account}dimension = ${add(dimension)} AND day BETWEEN ${add(r.from, '::date')} AND ${add(r.to, '::date')}`;
}

/**
 * A breakdown key's label: a product's name (the account's product of that sku; across accounts, any of them), a
 * user's name for an agent's id; otherwise, or when the product or user is gone, the key itself.
 */
export function labelSql(by: KpiBreakdown, accountId: string | null): string {
  if (by === 'product')
    return `(SELECT p.name FROM products p WHERE p.sku = b.key ${accountId ? `AND p.account_id = ${accountId}` : ''}
              ORDER BY p.id LIMIT 1)`;
  if (by === 'agent')
    return `(SELECT u.name FROM users u WHERE u.id = CASE WHEN b.key ~ '^[0-9]{1,9}$' THEN b.key::int END)`;
  return 'NULL';
}

/** The KPI rollup's statements (src/stats/kpi.service.ts); the rollup itself is kept by SQL functions. */
export function createKpiRepository(sequelize: Sequelize) {
  return {
    /** Leads per day and status (and those delivered), from the rollup. */
    statusDays(r: KpiRange): Promise<KpiStatusDay[]> {
      const { params, add } = placeholders();
      return select<KpiStatusDay>(
        sequelize,
        `SELECT day::text AS day, key AS status, sum(leads)::int AS leads, sum(delivered)::int AS delivered
           FROM kpi_daily WHERE ${rangeWhere(r, 'status', add)}
          GROUP BY day, key`,
        params,
      );
    },

    /** The largest keys of a breakdown over the range (most leads first, then by key bytes), with their labels. */
    breakdown(r: KpiRange, by: KpiBreakdown): Promise<KpiBreakdownRow[]> {
      const { params, add } = placeholders();
      const where = rangeWhere(r, by, add);
      const label = labelSql(by, r.accountId && by === 'product' ? add(r.accountId) : null);
      return select<KpiBreakdownRow>(
        sequelize,
        `WITH b AS (
           SELECT key, sum(leads)::int AS leads, sum(confirmed)::int AS confirmed, sum(delivered)::int AS delivered
             FROM kpi_daily WHERE ${where}
            GROUP BY key ORDER BY leads DESC, key COLLATE "C" LIMIT ${add(KPI_BREAKDOWN_ROWS)})
         SELECT b.key, coalesce(${label}, b.key) AS label, b.leads, b.confirmed, b.delivered
           FROM b ORDER BY b.leads DESC, b.key COLLATE "C"`,
        params,
      );
    },

    /** When the rollup was last folded (or rebuilt). */
    async foldedAt(): Promise<Date> {
      const [row] = await select<{ folded_at: Date }>(sequelize, 'SELECT folded_at FROM kpi_state', []);
      return row.folded_at;
    },

    /** Recomputes the account-days marked by writes since the last fold; answers how many. */
    async fold(): Promise<number> {
      const [row] = await sequelize.query<{ days: number }>('SELECT kpi_fold() AS days', { type: QueryTypes.SELECT });
      return row.days;
    },

    /** Recomputes every account-day from the source tables; answers how many. */
    async rebuild(): Promise<number> {
      const [row] = await sequelize.query<{ days: number }>('SELECT kpi_rebuild() AS days', {
        type: QueryTypes.SELECT,
      });
      return row.days;
    },
  };
}
export type KpiRepository = ReturnType<typeof createKpiRepository>;
