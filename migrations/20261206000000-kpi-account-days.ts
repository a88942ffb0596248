import type { Migration } from '../src/db/migrator.js';
import { FOLD_FUNCTIONS, FOLD_LOCK, MARK_FUNCTIONS, ROWS_FUNCTION } from './20261129000000-kpi-daily.js';

/**
 * The KPI rollup's days become the account's days (issue 32, docs/decisions.md "Time zones"): a lead counts on the day
 * of `created_at AT TIME ZONE accounts.time_zone`, so a lead made at 23:30 UTC on 30 Nov 2026 by a shop in
 * Africa/Casablanca (UTC+1) is on its 1 December. kpi_daily keeps its shape; its `day` is now the account's local day,
 * and the report reads it as before (ranges of the primary key), so reading costs what it cost.
 *
 * - `kpi_rows` reads a day's cohort between the account's local midnights (still one range of
 *   leads_account_created_idx per account-day);
 * - the leads trigger marks local days. It first takes the touched accounts' rows FOR KEY SHARE: a change of zone
 *   holds its account's row FOR UPDATE while it rebuilds the account's rows (src/accounts/account.service.ts), so a
 *   write either finishes before the rebuild reads, or waits and then marks days of the new zone. A leads statement
 *   whose account row is gone (a deleted account) marks every day the rollup holds for it, which the fold empties;
 * - the fold resolves marked leads to local days;
 * - `kpi_rebuild(account)` rebuilds one account (a zone change), `kpi_rebuild()` every account; the days recomputed
 *   are each account's local days from its first lead to its last (min and max of the account's index range).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    ${localRowsFunction()}
    ${MARK_LEADS}
    ${localFoldFunction()}
    DROP FUNCTION kpi_rebuild();
    ${REBUILD}
  `);
  await db.query('SELECT kpi_rebuild()');
};

export const down: Migration = async ({ context: db }) => {
  const previous = (sql: string) => sql.replaceAll('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
  await db.query(`
    DROP FUNCTION kpi_rebuild(integer);
    ${previous(ROWS_FUNCTION)}
    ${previous(MARK_FUNCTIONS)}
    ${previous(FOLD_FUNCTIONS)}
  `);
  await db.query('SELECT kpi_rebuild()');
};

/** `text` with `from` replaced by `to`, refusing when `from` is not there (the previous definition changed). */
export function swap(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the previous definition no longer holds: ${from}`);
  return text.replaceAll(from, to);
}

/** kpi_rows of migration 20261129000000 with its cohorts bounded by the account's local midnights. */
export function localRowsFunction(): string {
  let sql = swap(ROWS_FUNCTION, 'CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
  sql = swap(
    sql,
    'FROM unnest(accounts, days) AS d(account_id, day)',
    `FROM unnest(accounts, days) AS d(account_id, day)
          LEFT JOIN accounts z ON z.id = d.account_id`,
  );
  return swap(sql, "::timestamp AT TIME ZONE 'UTC'", "::timestamp AT TIME ZONE coalesce(z.time_zone, 'UTC')");
}

/** The marks of `rows` (account_id, created_at): their local days; every rollup day of an account that is gone. */
const markDays = (rows: string) => `
        PERFORM 1 FROM accounts WHERE id IN (SELECT r.account_id FROM (${rows}) r) FOR KEY SHARE;
        INSERT INTO kpi_dirty (account_id, day)
          WITH r AS (${rows})
          SELECT DISTINCT r.account_id, (r.created_at AT TIME ZONE z.time_zone)::date
            FROM r JOIN accounts z ON z.id = r.account_id
          UNION
          SELECT k.account_id, k.day FROM kpi_daily k
           WHERE k.dimension = 'status' AND k.account_id IN (SELECT account_id FROM r EXCEPT SELECT id FROM accounts);`;

const MARK_LEADS = `
    CREATE OR REPLACE FUNCTION kpi_mark_leads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN ${markDays('SELECT account_id, created_at FROM new_rows')}
      ELSIF TG_OP = 'DELETE' THEN ${markDays('SELECT account_id, created_at FROM old_rows')}
      ELSE ${markDays(`SELECT x.account_id, x.created_at
            FROM old_rows o JOIN new_rows n ON n.id = o.id
           CROSS JOIN LATERAL (VALUES (o.account_id, o.created_at), (n.account_id, n.created_at)) x(account_id, created_at)
           WHERE (o.status, o.city, o.data, o.created_at, o.account_id)
                 IS DISTINCT FROM (n.status, n.city, n.data, n.created_at, n.account_id)`)}
      END IF;
      RETURN NULL;
    END $$;`;

/** kpi_fold of migration 20261129000000 resolving marked leads to their account's days. */
export function localFoldFunction(): string {
  const fold = FOLD_FUNCTIONS.slice(0, FOLD_FUNCTIONS.indexOf('CREATE FUNCTION kpi_rebuild'));
  let sql = swap(fold, 'CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
  sql = swap(sql, 'FROM leads l WHERE l.id IN', 'FROM leads l JOIN accounts z ON z.id = l.account_id WHERE l.id IN');
  sql = swap(
    sql,
    'AND l.account_id = m.account_id',
    'AND l.account_id = m.account_id JOIN accounts z ON z.id = l.account_id',
  );
  return swap(sql, "(l.created_at AT TIME ZONE 'UTC')::date", '(l.created_at AT TIME ZONE z.time_zone)::date');
}

/** With an account, its rows alone (its marks go too: the rebuild covers them); without, every account's. */
export const REBUILD = `
    CREATE FUNCTION kpi_rebuild(account integer DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      accounts integer[];
      days date[];
    BEGIN
      PERFORM pg_advisory_xact_lock(${FOLD_LOCK});
      IF account IS NULL THEN
        DELETE FROM kpi_dirty;
        DELETE FROM kpi_daily;
      ELSE
        DELETE FROM kpi_dirty WHERE account_id = account;
        DELETE FROM kpi_daily WHERE account_id = account;
      END IF;
      SELECT coalesce(array_agg(a.id), '{}'), coalesce(array_agg(g.day::date), '{}') INTO accounts, days
        FROM accounts a
       CROSS JOIN LATERAL (SELECT min(created_at) AS first, max(created_at) AS last FROM leads l
                            WHERE l.account_id = a.id) m
       CROSS JOIN LATERAL generate_series((m.first AT TIME ZONE a.time_zone)::date,
                                          (m.last AT TIME ZONE a.time_zone)::date, interval '1 day') AS g(day)
       WHERE account IS NULL OR a.id = account;
      INSERT INTO kpi_daily SELECT * FROM kpi_rows(accounts, days);
      IF account IS NULL THEN
        UPDATE kpi_state SET folded_at = now();
      END IF;
      RETURN cardinality(days);
    END $$;`;
