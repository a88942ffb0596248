import type { Migration } from '../src/db/migrator.js';
import { FOLD_LOCK } from './20261129000000-kpi-daily.js';
import { localFoldFunction, REBUILD, swap } from './20261206000000-kpi-account-days.js';

/**
 * One account's rebuild (a change of its time zone: ≈ 13 s per million leads) no longer stops the fold of every other
 * account. Before, `kpi_rebuild(account)` held the fold's advisory lock for its whole run, so a seller changing zones
 * in a loop kept every account's KPI figures stale (found by the issue 32 attack).
 * - `kpi_rebuild(account)` takes the account's own lock (FOLD_LOCK, account) and the whole-rollup lock shared;
 * - `kpi_fold()` keeps its one-at-a-time lock and takes only the marks of accounts whose lock it gets at once
 *   (`pg_try_advisory_xact_lock`, held to its commit): the marks of an account being rebuilt stay for the next fold,
 *   and a rebuild that starts during a fold waits for it;
 * - `kpi_rebuild()` (every account: migrations, CLI `kpi:rebuild`) takes the whole-rollup lock exclusively, so it
 *   never runs beside an account's rebuild.
 */
const WHOLE_ROLLUP_LOCK = FOLD_LOCK + 1;

export const fairFold = () =>
  swap(
    localFoldFunction(),
    'DELETE FROM kpi_dirty RETURNING',
    `DELETE FROM kpi_dirty WHERE pg_try_advisory_xact_lock(${FOLD_LOCK}, account_id) RETURNING`,
  );

export const fairRebuild = () =>
  swap(
    swap(REBUILD, 'CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'),
    `PERFORM pg_advisory_xact_lock(${FOLD_LOCK});`,
    `IF account IS NULL THEN
        PERFORM pg_advisory_xact_lock(${WHOLE_ROLLUP_LOCK});
        PERFORM pg_advisory_xact_lock(${FOLD_LOCK});
      ELSE
        PERFORM pg_advisory_xact_lock_shared(${WHOLE_ROLLUP_LOCK});
        PERFORM pg_advisory_xact_lock(${FOLD_LOCK}, account);
      END IF;`,
  );

export const up: Migration = async ({ context: db }) => {
  await db.query(`${fairFold()} ${fairRebuild()}`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`${localFoldFunction()} ${swap(REBUILD, 'CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION')}`);
};
