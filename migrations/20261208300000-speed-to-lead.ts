import type { Migration } from '../src/db/migrator.js';
import { BOTH_VERSIONS, DIMENSIONS, markFunction } from './20261129000000-kpi-daily.js';
import { localRowsFunction, swap } from './20261206000000-kpi-account-days.js';
import { fairFold, fairRebuild } from './20261207000000-kpi-rebuild-per-account.js';

/**
 * Speed to lead and return rate (issue 33, docs/decisions.md "Speed to lead").
 *
 * - `leads.first_touch_at` / `first_touch_user_id`: the first status change made by a person (a user, or a REST
 *   token's owner), written by the status update itself (src/leads/lead.repository.ts setLeadStatuses); backfilled
 *   here from lead_histories: the first entry after the creation entry that changed the status and has a user.
 * - `leads.entry_point`: where the lead came in ('import', 'api', 'panel'), decided by one SQL function,
 *   `lead_entry_point`, written by the one batch insert (src/leads/lead-batch.repository.ts; a per-row trigger would
 *   cost every imported row a PL/pgSQL call). It is stored because the columns it reads are set null later (a revoked
 *   token is deleted, an import run may be). A lead source's lead (issue 34, migration 20261209000000) came in by
 *   'form' or 'store', from the source's kind.
 * - kpi_daily gains `returned` (the lead's order is returned) and two dimensions: `delay` (the band of the first
 *   touch's delay, or 'untouched') and `confirmer` (the user of the latest move to confirmed, for leads with an order).
 * - `kpi_delays`: histograms of the delay at a stated resolution (`kpi_delay_bucket`, 103 buckets: 1 min up to
 *   15 min, 5 min up to 1 h, 15 min up to 4 h, 1 h up to 1 day, 6 h up to 7 days, 1 day up to 30 days; a delay is
 *   rounded up to its bucket's edge, more than 30 days counts as 30 days) per account, dimension ('all', 'agent',
 *   'entry') and key, over aligned blocks of 2^span days (span 0 a day, up to 9: 512 days). Percentiles cannot be
 *   summed over days, histograms can: a period of up to 366 days is at most 18 aligned blocks, so a report sums at
 *   most 18 × keys × 103 rows whatever the period's length (a day-level histogram read for 365 days by agent was
 *   ≈ 365 × 9 × 60 rows). The fold recomputes a marked day's span-0 rows from the leads, then each enclosing block
 *   from its two halves.
 */
const DAY_ZERO = "DATE '2000-01-01'";
const SPANS = 9;
/** Every lead touched ('all', key ''), per first toucher, per entry point. */
const DELAY_DIMENSIONS = "'all', 'agent', 'entry'";
const NEW_DIMENSIONS = `${DIMENSIONS}, 'delay', 'confirmer'`;

const FUNCTIONS = `
    CREATE FUNCTION lead_entry_point(import_run_id integer, created_by_token_id integer, source_kind text DEFAULT NULL)
    RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN import_run_id IS NOT NULL THEN 'import'
                  WHEN source_kind = 'form' THEN 'form'
                  WHEN source_kind IS NOT NULL THEN 'store'
                  WHEN created_by_token_id IS NOT NULL THEN 'api'
                  ELSE 'panel' END
    $$;

    -- the resolution of docs/decisions.md "Speed to lead": the bucket whose upper edge is the first at or above the
    -- delay (whole seconds rounded up; below 0 as 0, above 30 days as 30 days)
    CREATE FUNCTION kpi_delay_bucket(seconds numeric) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
      SELECT (CASE WHEN s <= 900 THEN greatest(ceil(s / 60), 1) - 1
                   WHEN s <= 3600 THEN 14 + ceil((s - 900) / 300)
                   WHEN s <= 14400 THEN 23 + ceil((s - 3600) / 900)
                   WHEN s <= 86400 THEN 35 + ceil((s - 14400) / 3600)
                   WHEN s <= 604800 THEN 55 + ceil((s - 86400) / 21600)
                   ELSE 79 + ceil((least(s, 2592000) - 604800) / 86400) END)::smallint
        FROM (SELECT greatest(ceil(seconds), 0) AS s) x
    $$;

    -- the confirmation-rate bands of the KPI page: exact, half-open
    CREATE FUNCTION kpi_delay_band(created timestamptz, touched timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN touched IS NULL THEN 'untouched'
                  WHEN touched - created < interval '15 minutes' THEN 'under_15m'
                  WHEN touched - created < interval '1 hour' THEN '15_60m'
                  WHEN touched - created < interval '4 hours' THEN '1_4h'
                  ELSE 'later' END
    $$;`;

/**
 * kpi_rows of migration 20261206000000 with `returned`, the delay band and the confirmer (the definitions of
 * docs/operations.md). One aggregate over the lead's orders (orders_lead_idx; one order per lead unless moved by hand)
 * replaces the delivered probe and also answers returned and whether the lead has an order.
 */
function rowsFunction(): string {
  let sql = swap(localRowsFunction(), 'CREATE OR REPLACE FUNCTION', 'CREATE FUNCTION');
  sql = swap(sql, 'delivered integer)', 'delivered integer, returned integer)');
  sql = swap(
    sql,
    "coalesce((SELECT 1 FROM orders o WHERE o.lead_id = l.id AND o.status = 'delivered' LIMIT 1), 0) AS delivered",
    `coalesce(o.delivered, false)::int AS delivered, coalesce(o.returned, false)::int AS returned,
               o.delivered IS NOT NULL AS ordered, kpi_delay_band(l.created_at, l.first_touch_at) AS band`,
  );
  sql = swap(
    sql,
    'SELECT l.id, l.account_id, l.status, l.city, l.data FROM leads l',
    'SELECT l.id, l.account_id, l.status, l.city, l.data, l.created_at, l.first_touch_at FROM leads l',
  );
  sql = swap(
    sql,
    'OFFSET 0) l\n',
    `OFFSET 0) l
          LEFT JOIN LATERAL (
            SELECT bool_or(o.status = 'delivered') AS delivered, bool_or(o.status = 'returned') AS returned
              FROM orders o WHERE o.lead_id = l.id) o ON true\n`,
  );
  sql = swap(sql, 'c.confirmed, c.delivered,', 'c.confirmed, c.delivered, c.returned,');
  return swap(
    sql,
    `      )
      SELECT account_id, dimension, day, key, count(*)::int, sum(confirmed)::int, sum(delivered)::int`,
    `        UNION ALL
        SELECT c.account_id, c.day, c.confirmed, c.delivered, c.returned, 'delay', c.band FROM cohort c
        UNION ALL
        -- the person who confirmed a lead that has an order (the latest move to confirmed, the creation included)
        SELECT c.account_id, c.day, c.confirmed, c.delivered, c.returned, 'confirmer',
               coalesce((SELECT h.changed_by_user_id::text FROM lead_histories h
                          WHERE h.lead_id = c.id AND h.changed_by_user_id IS NOT NULL AND h.new_status = 'confirmed'
                            AND h.old_status IS DISTINCT FROM 'confirmed'
                          ORDER BY h.changed_at DESC, h.id DESC LIMIT 1), '(nobody)')
          FROM cohort c WHERE c.ordered
      )
      SELECT account_id, dimension, day, key, count(*)::int, sum(confirmed)::int, sum(delivered)::int,
             sum(returned)::int`,
  );
}

/** The span-0 histogram rows of the account-days given (touched leads only), per dimension and key. */
const DELAY_ROWS = `
    CREATE FUNCTION kpi_delay_rows(accounts integer[], days date[])
    RETURNS TABLE (account_id integer, span smallint, block integer, dimension text, key text, bucket smallint,
                   leads integer)
    LANGUAGE sql STABLE AS $$
      WITH touched AS (
        SELECT d.account_id, d.day - ${DAY_ZERO} AS block, l.first_touch_user_id, l.entry_point,
               kpi_delay_bucket(extract(epoch FROM l.first_touch_at - l.created_at)) AS bucket
          FROM unnest(accounts, days) AS d(account_id, day)
          LEFT JOIN accounts z ON z.id = d.account_id
          CROSS JOIN LATERAL (
            SELECT l.first_touch_at, l.created_at, l.first_touch_user_id, l.entry_point FROM leads l
             WHERE l.account_id = d.account_id
               AND l.created_at >= d.day::timestamp AT TIME ZONE coalesce(z.time_zone, 'UTC')
               AND l.created_at < (d.day + 1)::timestamp AT TIME ZONE coalesce(z.time_zone, 'UTC')
               AND l.first_touch_at IS NOT NULL
            OFFSET 0) l)
      SELECT t.account_id, 0::smallint, t.block, k.dimension, k.key, t.bucket, count(*)::int
        FROM touched t
       CROSS JOIN LATERAL (VALUES ('all', ''), ('agent', coalesce(t.first_touch_user_id::text, '(deleted)')),
                                  ('entry', t.entry_point)) AS k(dimension, key)
       GROUP BY 1, 3, 4, 5, 6
    $$;`;

/** The blocks of span `lvl` that hold the account-days given. */
const BLOCKS = `SELECT DISTINCT d.account_id, (d.day - ${DAY_ZERO}) >> lvl AS block
                  FROM unnest(accounts, days) AS d(account_id, day)`;

/** Recomputes the histograms of the account-days given: their span-0 rows, then every enclosing block. */
const DELAY_FOLD = `
    CREATE FUNCTION kpi_delay_fold(accounts integer[], days date[]) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      lvl integer;
    BEGIN
      DELETE FROM kpi_delays k USING unnest(accounts, days) AS d(account_id, day)
       WHERE k.account_id = d.account_id AND k.dimension IN (${DELAY_DIMENSIONS}) AND k.span = 0
         AND k.block = d.day - ${DAY_ZERO};
      INSERT INTO kpi_delays SELECT * FROM kpi_delay_rows(accounts, days);
      FOR lvl IN 1..${SPANS} LOOP
        DELETE FROM kpi_delays k USING (${BLOCKS}) b
         WHERE k.account_id = b.account_id AND k.dimension IN (${DELAY_DIMENSIONS}) AND k.span = lvl
           AND k.block = b.block;
        INSERT INTO kpi_delays
          SELECT k.account_id, lvl, b.block, k.dimension, k.key, k.bucket, sum(k.leads)::int
            FROM (${BLOCKS}) b
            JOIN kpi_delays k ON k.account_id = b.account_id AND k.dimension IN (${DELAY_DIMENSIONS}) AND k.span = lvl - 1
                             AND k.block IN (b.block * 2, b.block * 2 + 1)
           GROUP BY k.account_id, b.block, k.dimension, k.key, k.bucket;
      END LOOP;
      DELETE FROM kpi_delay_days k USING unnest(accounts, days) AS d(account_id, day)
       WHERE k.account_id = d.account_id AND k.day = d.day;
      INSERT INTO kpi_delay_days
        SELECT c.account_id, ${DAY_ZERO} + c.block, max(c.touched),
               min(c.bucket) FILTER (WHERE c.upto >= ceil(c.touched * 0.5)),
               min(c.bucket) FILTER (WHERE c.upto >= ceil(c.touched * 0.9))
          FROM (SELECT k.account_id, k.block, k.bucket, sum(k.leads) OVER w AS upto,
                       sum(k.leads) OVER (PARTITION BY k.account_id, k.block) AS touched
                  FROM unnest(accounts, days) AS d(account_id, day)
                  JOIN kpi_delays k ON k.account_id = d.account_id AND k.dimension = 'all' AND k.span = 0
                                   AND k.block = d.day - ${DAY_ZERO}
                WINDOW w AS (PARTITION BY k.account_id, k.block ORDER BY k.bucket)) c
         GROUP BY c.account_id, c.block;
    END $$;`;

const ROWS_INSERT = 'INSERT INTO kpi_daily SELECT * FROM kpi_rows(accounts, days);';

const fold = () =>
  swap(
    swap(fairFold(), `k.dimension IN (${DIMENSIONS})`, `k.dimension IN (${NEW_DIMENSIONS})`),
    ROWS_INSERT,
    `${ROWS_INSERT}\n      PERFORM kpi_delay_fold(accounts, days);`,
  );

const rebuild = () =>
  swap(
    fairRebuild(),
    ROWS_INSERT,
    `${ROWS_INSERT}
      DELETE FROM kpi_delays WHERE account IS NULL OR account_id = account;
      DELETE FROM kpi_delay_days WHERE account IS NULL OR account_id = account;
      PERFORM kpi_delay_fold(accounts, days);`,
  );

/**
 * Orders mark their lead when one with a lead comes or goes (the confirmer counts leads with an order), or moves to
 * or from delivered or returned; `previous` is the definition of migration 20261129000000 (delivered only).
 */
const markOrders = (previous = false) => {
  const states = previous ? "('delivered')" : "('delivered', 'returned')";
  const kept = previous ? " AND status = 'delivered'" : '';
  return markFunction('kpi_mark_orders', {
    insert: `SELECT account_id, lead_id FROM new_rows WHERE lead_id IS NOT NULL${kept}`,
    delete: `SELECT account_id, lead_id FROM old_rows WHERE lead_id IS NOT NULL${kept}`,
    update: `${BOTH_VERSIONS}
        WHERE ((o.status IS DISTINCT FROM n.status AND (o.status IN ${states} OR n.status IN ${states}))
               OR o.lead_id IS DISTINCT FROM n.lead_id)
          AND x.lead_id IS NOT NULL`,
  }).replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
};

/** The first status change by a person of every lead (the creation entry and `system` entries are not one). */
const BACKFILL = `
    UPDATE leads l SET first_touch_at = h.changed_at, first_touch_user_id = h.changed_by_user_id
      FROM (SELECT DISTINCT ON (lead_id) lead_id, changed_at, changed_by_user_id FROM lead_histories
             WHERE old_status IS NOT NULL AND old_status <> new_status AND changed_by_user_id IS NOT NULL
             ORDER BY lead_id, changed_at, id) h
     WHERE l.id = h.lead_id;
    UPDATE leads SET entry_point = lead_entry_point(import_run_id, created_by_token_id)
     WHERE entry_point <> lead_entry_point(import_run_id, created_by_token_id);`;

export const up: Migration = async ({ context: db }) => {
  await db.query(`
    ${FUNCTIONS}
    ALTER TABLE leads ADD COLUMN first_touch_at timestamptz,
      ADD COLUMN first_touch_user_id integer REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN entry_point text NOT NULL DEFAULT 'panel';
    ${BACKFILL}

    ALTER TABLE kpi_daily ADD COLUMN returned integer NOT NULL DEFAULT 0;
    ALTER TABLE kpi_daily DROP CONSTRAINT kpi_daily_dimension_check,
      ADD CONSTRAINT kpi_daily_dimension_check CHECK (dimension IN (${NEW_DIMENSIONS}));
    ALTER TABLE kpi_daily DROP CONSTRAINT kpi_daily_pkey,
      ADD PRIMARY KEY (account_id, dimension, day, key) INCLUDE (leads, confirmed, delivered, returned);
    DROP INDEX kpi_daily_dimension_day_idx;
    CREATE INDEX kpi_daily_dimension_day_idx ON kpi_daily (dimension, day)
      INCLUDE (key, leads, confirmed, delivered, returned);

    CREATE TABLE kpi_delays (
      account_id integer NOT NULL,
      span smallint NOT NULL CHECK (span BETWEEN 0 AND ${SPANS}),
      block integer NOT NULL,
      dimension text NOT NULL CHECK (dimension IN (${DELAY_DIMENSIONS})),
      key text NOT NULL,
      bucket smallint NOT NULL,
      leads integer NOT NULL,
      PRIMARY KEY (account_id, dimension, span, block, key, bucket) INCLUDE (leads)
    );
    -- an account's day chart: each day's percentiles (the nearest-rank buckets of its span-0 'all' histogram), kept
    -- by the fold beside the histograms, so a 365-day chart reads 365 rows, not ≈ 25,000 histogram rows (100 k leads)
    CREATE TABLE kpi_delay_days (
      account_id integer NOT NULL,
      day date NOT NULL,
      touched integer NOT NULL,
      p50 smallint NOT NULL,
      p90 smallint NOT NULL,
      PRIMARY KEY (account_id, day) INCLUDE (touched, p50, p90)
    );
    -- an admin's report of every account
    CREATE INDEX kpi_delays_block_idx ON kpi_delays (span, block, dimension) INCLUDE (key, bucket, leads);

    DROP FUNCTION kpi_rows(integer[], date[]);
    ${rowsFunction()}
    ${DELAY_ROWS}
    ${DELAY_FOLD}
    ${fold()}
    ${rebuild()}
    ${markOrders()}
  `);
  await db.query('SELECT kpi_rebuild()');
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    ${markOrders(true)}
    DROP FUNCTION kpi_rows(integer[], date[]);
    DELETE FROM kpi_daily WHERE dimension IN ('delay', 'confirmer');
    ${localRowsFunction().replace('CREATE OR REPLACE FUNCTION', 'CREATE FUNCTION')}
    ${fairFold()}
    ${fairRebuild()}
    DROP FUNCTION kpi_delay_fold(integer[], date[]);
    DROP FUNCTION kpi_delay_rows(integer[], date[]);
    DROP TABLE kpi_delays;
    DROP TABLE kpi_delay_days;
    ALTER TABLE kpi_daily DROP CONSTRAINT kpi_daily_dimension_check,
      ADD CONSTRAINT kpi_daily_dimension_check CHECK (dimension IN (${DIMENSIONS}));
    ALTER TABLE kpi_daily DROP COLUMN returned;
    ALTER TABLE kpi_daily DROP CONSTRAINT IF EXISTS kpi_daily_pkey,
      ADD PRIMARY KEY (account_id, dimension, day, key) INCLUDE (leads, confirmed, delivered);
    CREATE INDEX IF NOT EXISTS kpi_daily_dimension_day_idx ON kpi_daily (dimension, day)
      INCLUDE (key, leads, confirmed, delivered);
    ALTER TABLE leads DROP COLUMN first_touch_at, DROP COLUMN first_touch_user_id, DROP COLUMN entry_point;
    DROP FUNCTION lead_entry_point(integer, integer, text);
    DROP FUNCTION kpi_delay_band(timestamptz, timestamptz);
    DROP FUNCTION kpi_delay_bucket(numeric);
  `);
  await db.query('SELECT kpi_rebuild()');
};
