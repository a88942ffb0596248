import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Core } from '../context.js';
import { delay } from '../timers.js';

/**
 * Fresh planner statistics after bulk writes. PostgreSQL plans a list from each table's statistics, which autovacuum
 * refreshes only a minute or more after a table has changed by 10 %. Meanwhile an account that just received 20,000
 * leads is planned as if it had none (its id is not among the values the statistics know), so its lead list sorts
 * all its rows instead of reading the first page from the (account, created_at) index: 19 ms instead of 0.07 ms
 * (docs/performance.md, "Statistics after bulk writes"). So bulk writes have the tables analyzed at once, off the
 * request path: an import analyzes the lead tables at its end, in its job, and a REST request of 1,000 rows or more
 * wakes the worker's `analyze-tables` job at its commit; that job also runs every minute, for what smaller writes
 * add up to. Skew is the point, not size: a new account's 20,000 leads are 2 % of a million-lead table, so no share
 * of the table is required, only 1,000 changed rows. Analyzing is cheap (a sample of 30,000 rows at most) but not
 * free: a process's analyzes take at most 5 % of the time (ANALYZE_TIME_SHARE_PERCENT; after one that took 100 ms, the
 * next waits 1.9 s).
 */

/** The tables whose lists and lookups bulk writes can mislead. */
export const BULK_TABLES = ['leads', 'lead_products', 'lead_histories', 'orders', 'order_products', 'order_histories'];
const LEAD_TABLES = ['leads', 'lead_products', 'lead_histories'];

/** The NOTIFY channel that wakes the statistics job (jobs/table-statistics.job.ts). */
export const ANALYZE_CHANNEL = 'analyze';

/** A write of this many rows in one request wakes the statistics job; fewer are left to its run every minute. */
export const ANALYZE_WAKE_ROWS = 1000;

/** A table is analyzed once this many of its rows were written since its last analyze. */
const MIN_CHANGED_ROWS = 1000;

/** When this process may analyze again (its last analyze's end plus the pause it earned). */
type Pacing = { nextAt: number };

/**
 * Called in the transaction of a bulk write: at its commit the statistics job is woken, and this connection's
 * write counters reach the statistics system at once (they are otherwise sent up to a second later), so the job
 * sees the rows it was woken for.
 */
export async function requestAnalyze(sequelize: Sequelize, transaction: Transaction): Promise<void> {
  await sequelize.query(`SELECT pg_stat_force_next_flush(), pg_notify('${ANALYZE_CHANNEL}', '')`, { transaction });
}

async function analyze(core: Core, pacing: Pacing, tables: string[], why: Record<string, unknown>) {
  const wait = pacing.nextAt - Date.now();
  if (wait > 0) await delay(wait);
  const started = Date.now();
  await core.db.sequelize.query(`ANALYZE ${tables.map((t) => `"${t}"`).join(', ')}`);
  const took = Date.now() - started;
  // at most ANALYZE_TIME_SHARE_PERCENT of the time (5 %: the next one waits 19 × t)
  pacing.nextAt = Date.now() + core.config.analyzePauseFactor * took;
  core.logger.info({ tables, ...why, duration_ms: took }, 'tables analyzed');
}

/**
 * Analyzes each bulk table with 1,000 or more rows written since its last analyze (ours or autovacuum's), once this
 * process's pause after its previous analyze is over. Answers the tables analyzed.
 */
async function analyzeChanged(core: Core, pacing: Pacing): Promise<string[]> {
  const rows = await core.db.sequelize.query<{ table: string; changed: number }>(
    `SELECT relname AS table, n_mod_since_analyze::float8 AS changed
       FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ANY($1)`,
    { bind: [BULK_TABLES], type: QueryTypes.SELECT },
  );
  const due = rows.filter((r) => r.changed >= MIN_CHANGED_ROWS);
  if (!due.length) return [];
  const tables = due.map((r) => r.table);
  const changed = Object.fromEntries(due.map((r) => [r.table, r.changed]));
  await analyze(core, pacing, tables, { reason: 'changed', rows: changed });
  return tables;
}

/** One pacing for every analyze of this process. */
const processPacing: Pacing = { nextAt: 0 };

/** When this process may analyze again (epoch ms): an analyze asked for earlier waits until then. */
export const nextAnalyzeAt = (): number => processPacing.nextAt;

/**
 * At the end of an import that wrote `written` leads (1,000 or more): the lead tables are analyzed before the run is
 * reported completed, so the account's lists are planned for its new rows as soon as it shows completed.
 */
export async function analyzeAfterImport(core: Core, written: number): Promise<boolean> {
  if (written < MIN_CHANGED_ROWS) return false;
  await analyze(core, processPacing, LEAD_TABLES, { reason: 'import', rows: written });
  return true;
}

export function createTableStatisticsService(core: Core) {
  return {
    /** The statistics job's run: analyzes the bulk tables changed enough since their last analyze. */
    analyzeChanged: () => analyzeChanged(core, processPacing),
  };
}
