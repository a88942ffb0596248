import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';

/**
 * Zone changes' rebuilds of an account's KPI days (issue 40, finding 3; docs/decisions.md, "Time zones"): the change
 * asks, the `rebuild-kpi-zones` job (jobs/kpi.job.ts) rebuilds, out of band.
 */

/** The NOTIFY channel that wakes the zone rebuild job: an account's zone changed. */
export const KPI_CHANNEL = 'kpi_marked';

/**
 * Asks for an account's days to be recomputed (a zone change), in the caller's transaction: one row per account
 * however many changes, and a NOTIFY that wakes the `rebuild-kpi-zones` job once it commits.
 */
export async function requestZoneRebuild(
  sequelize: Sequelize,
  accountId: number,
  transaction: Transaction,
): Promise<void> {
  await select(
    sequelize,
    `INSERT INTO kpi_zone_rebuilds (account_id) VALUES ($1)
     ON CONFLICT (account_id) DO UPDATE SET requested_at = clock_timestamp()`,
    [accountId],
    transaction,
  );
  await select(sequelize, `SELECT pg_notify('${KPI_CHANNEL}', '')`, [], transaction);
}

/**
 * Recomputes the days of every account asked for (kpi_rebuild(account): that account's lock only, the fold goes on
 * for the others), each in its own transaction, oldest request first; a request made during its rebuild stays for
 * the next run. Answers how many accounts were rebuilt.
 */
export async function rebuildRequested(sequelize: Sequelize): Promise<number> {
  // (the time as text: a Date would drop its microseconds, and the request never match)
  const asked = await select<{ account_id: number; requested_at: string }>(
    sequelize,
    'SELECT account_id, requested_at::text AS requested_at FROM kpi_zone_rebuilds ORDER BY 2',
    [],
  );
  for (const r of asked)
    await sequelize.transaction(async (transaction) => {
      await select(sequelize, 'SELECT kpi_rebuild($1)', [r.account_id], transaction);
      await select(
        sequelize,
        'DELETE FROM kpi_zone_rebuilds WHERE account_id = $1 AND requested_at = $2::timestamptz',
        [r.account_id, r.requested_at],
        transaction,
      );
    });
  return asked.length;
}
