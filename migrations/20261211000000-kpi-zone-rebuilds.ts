import type { Migration } from '../src/db/migrator.js';

/**
 * An account's KPI days to recompute after its zone changed (issue 40, finding 3): the change writes this row (one per
 * account, however many changes) and the `rebuild-kpi-zones` job recomputes the account's days out of band
 * (jobs/kpi.job.ts). Before, the change rebuilt them in its own transaction holding the account's row, and 30 saves at
 * once held every pool connection waiting on it.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE kpi_zone_rebuilds (
      account_id integer PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
      requested_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE kpi_zone_rebuilds');
};
