import type { Migration } from '../src/db/migrator.js';

/** The advisory lock key folds and rebuilds of the rollup take (one at a time, whatever the process). */
export const FOLD_LOCK = 2026112900;

/** The breakdowns kept per day besides the lead status. */
export const DIMENSIONS = "'status', 'product', 'city', 'source', 'agent'";

/**
 * (Its days are the account's local days since migration 20261206000000, which replaces kpi_rows, the leads trigger,
 * the fold and the rebuild on the definitions exported here.)
 *
 * The KPI dashboard's daily rollup (src/stats/kpi.service.ts): per account, UTC creation day and dimension (lead status,
 * product sku, city, utm_source, the agent who last changed the status), the number of leads of that day's cohort, how
 * many of them are confirmed and how many have a delivered order. The KPI page sums a few thousand of these rows
 * instead of joining a million leads to their products, histories and orders.
 *
 * Writes stay cheap: statement-level triggers (ENABLE ALWAYS: the lead batch insert runs with
 * session_replication_role = replica) append a "dirty" mark per statement: the (account, day) pairs a leads statement
 * touched, or the leads a products, histories or orders statement touched (a range of ids, or a list; resolved to
 * days by the fold, so an import's batch costs one appended row per table, not a lookup per lead). The `kpi_fold()` function, run every minute
 * by a job, takes the marks (DELETE … RETURNING) and recomputes the rollup rows of each marked account-day from the
 * source tables, in one transaction under an advisory lock, so two workers folding at once cannot double count.
 * A fold recomputes whole days: its cost grows with the leads of the marked days, not with the account.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE kpi_daily (
      account_id integer NOT NULL,
      dimension text NOT NULL CHECK (dimension IN (${DIMENSIONS})),
      day date NOT NULL,
      key text NOT NULL,
      leads integer NOT NULL,
      confirmed integer NOT NULL,
      delivered integer NOT NULL,
      PRIMARY KEY (account_id, dimension, day, key) INCLUDE (leads, confirmed, delivered)
    );
    -- an admin's report of every account
    CREATE INDEX kpi_daily_dimension_day_idx ON kpi_daily (dimension, day) INCLUDE (key, leads, confirmed, delivered);

    -- appended by the triggers, taken by the fold: a day of an account, or leads (a list of ids, or a range of ids
    -- of which the account's leads count) whose days the fold looks up
    CREATE TABLE kpi_dirty (
      account_id integer NOT NULL,
      day date,
      lead_ids bigint[],
      first_id bigint,
      last_id bigint,
      CHECK (num_nonnulls(day, lead_ids, first_id) = 1 AND (first_id IS NULL) = (last_id IS NULL))
    );

    CREATE TABLE kpi_state (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      folded_at timestamptz NOT NULL
    );
    INSERT INTO kpi_state (folded_at) VALUES (now());

    ${ROWS_FUNCTION}
    ${MARK_FUNCTIONS}
    ${FOLD_FUNCTIONS}
  `);
  const triggers: [table: string, fn: string, ops: string[]][] = [
    ['leads', 'kpi_mark_leads', ['insert', 'update', 'delete']],
    ['lead_products', 'kpi_mark_lead_products', ['insert', 'update', 'delete']],
    ['lead_histories', 'kpi_mark_lead_histories', ['insert', 'update', 'delete']],
    ['orders', 'kpi_mark_orders', ['insert', 'update', 'delete']],
  ];
  for (const [table, fn, ops] of triggers) {
    for (const op of ops) {
      const refs =
        { insert: 'NEW TABLE AS new_rows', delete: 'OLD TABLE AS old_rows' }[op] ??
        'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      await db.query(`
        CREATE TRIGGER ${table}_kpi_${op} AFTER ${op.toUpperCase()} ON ${table} REFERENCING ${refs}
          FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();
        ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${table}_kpi_${op};`);
    }
    await db.query(`
      CREATE TRIGGER ${table}_kpi_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION kpi_forget();
      ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${table}_kpi_truncate;`);
  }
  // the rollup of the rows already there
  await db.query('SELECT kpi_rebuild()');
};

/**
 * `kpi_rows(accounts, days)`: the rollup rows of the account-days given as two parallel arrays, computed from the
 * source tables. The definitions of docs/operations.md "KPI dashboard": a lead counts under its current status, each
 * sku it holds (once per sku), its city (trimmed; "(none)"), the value of its first data pair whose key is utm_source
 * in any case ("(none)"), and the user id of its latest history entry made by a user ("(nobody)"); it is delivered
 * when its order is.
 */
export const ROWS_FUNCTION = `
    CREATE FUNCTION kpi_rows(accounts integer[], days date[])
    RETURNS TABLE (account_id integer, dimension text, day date, key text, leads integer, confirmed integer,
                   delivered integer)
    LANGUAGE sql STABLE AS $$
      WITH cohort AS (
        SELECT l.id, l.account_id, d.day, l.status, l.city, l.data,
               (l.status = 'confirmed')::int AS confirmed,
               -- a probe of orders_lead_idx per lead (EXISTS was planned as a scan of every delivered order: 70 ms
               -- of a one-day fold at 1 M leads)
               coalesce((SELECT 1 FROM orders o WHERE o.lead_id = l.id AND o.status = 'delivered' LIMIT 1), 0) AS delivered
          FROM unnest(accounts, days) AS d(account_id, day)
          -- one range of leads_account_created_idx per account-day (OFFSET 0 keeps the planner from turning it into
          -- a hash join on the account alone, which compares every lead of the account with every day)
          CROSS JOIN LATERAL (
            SELECT l.id, l.account_id, l.status, l.city, l.data FROM leads l
             WHERE l.account_id = d.account_id
               AND l.created_at >= d.day::timestamp AT TIME ZONE 'UTC'
               AND l.created_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC'
            OFFSET 0) l
      ), keyed AS (
        SELECT c.account_id, c.day, c.confirmed, c.delivered, 'status' AS dimension, c.status AS key FROM cohort c
        UNION ALL
        SELECT c.account_id, c.day, c.confirmed, c.delivered, 'city', coalesce(nullif(btrim(c.city), ''), '(none)')
          FROM cohort c
        UNION ALL
        SELECT c.account_id, c.day, c.confirmed, c.delivered, 'source',
               coalesce((SELECT left(nullif(btrim(e.pair->>'value'), ''), 200)
                           FROM jsonb_array_elements(CASE jsonb_typeof(c.data) WHEN 'array' THEN c.data END)
                                WITH ORDINALITY AS e(pair, n)
                          WHERE lower(e.pair->>'key') = 'utm_source' ORDER BY e.n LIMIT 1), '(none)')
          FROM cohort c
        UNION ALL
        SELECT c.account_id, c.day, c.confirmed, c.delivered, 'agent',
               coalesce((SELECT h.changed_by_user_id::text FROM lead_histories h
                          WHERE h.lead_id = c.id AND h.changed_by_user_id IS NOT NULL AND h.old_status IS NOT NULL
                          ORDER BY h.changed_at DESC, h.id DESC LIMIT 1), '(nobody)')
          FROM cohort c
        UNION ALL
        SELECT c.account_id, c.day, c.confirmed, c.delivered, 'product', coalesce(p.sku, '(none)')
          FROM cohort c
          LEFT JOIN LATERAL (SELECT DISTINCT lp.sku FROM lead_products lp WHERE lp.lead_id = c.id) p ON true
      )
      SELECT account_id, dimension, day, key, count(*)::int, sum(confirmed)::int, sum(delivered)::int
        FROM keyed GROUP BY account_id, dimension, day, key
    $$;`;

/** A lead id set appended as a range when its ids are this dense (a batch insert's are consecutive), else as a list. */
const DENSE = 4;

/** The lead of both versions of every updated row (`o` old, `n` new), as (account_id, lead_id) rows `x`. */
export const BOTH_VERSIONS = `SELECT x.account_id, x.lead_id FROM old_rows o JOIN new_rows n ON n.id = o.id
           CROSS JOIN LATERAL (VALUES (o.account_id, o.lead_id), (n.account_id, n.lead_id)) x(account_id, lead_id)`;

/**
 * Appends the leads of `rows` (account_id, lead_id) of a statement: per account, the range of their ids when it holds
 * fewer than DENSE ids per lead row (one row, whatever the statement's size: an import batch), else the distinct ids
 * (an array per statement costs ≈ 1 µs per id to store; a range ≈ 0.15 µs per row to find).
 */
const markLeads = (rows: string) => `
        INSERT INTO kpi_dirty (account_id, first_id, last_id)
          SELECT account_id, min(lead_id), max(lead_id) FROM (${rows}) r
           GROUP BY 1 HAVING max(lead_id) - min(lead_id) < ${DENSE} * count(*);
        INSERT INTO kpi_dirty (account_id, lead_ids)
          SELECT account_id, array_agg(DISTINCT lead_id) FROM (${rows}) r
           GROUP BY 1 HAVING max(lead_id) - min(lead_id) >= ${DENSE} * count(*);`;

/** A trigger function marking the leads of the rows an insert, update or delete statement touched. */
export const markFunction = (name: string, rows: { insert: string; delete: string; update: string }) => `
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN ${markLeads(rows.insert)}
      ELSIF TG_OP = 'DELETE' THEN ${markLeads(rows.delete)}
      ELSE ${markLeads(rows.update)}
      END IF;
      RETURN NULL;
    END $$;`;

/**
 * The trigger functions. A leads statement marks the (account, day) pairs of the rows it inserted or deleted, and of
 * both versions of each row whose status, city, data, day or account it changed; the other tables mark lead ids.
 * A history entry matters only when made by a user (the agent breakdown), and a creation entry (old_status null) not
 * even then: it is written by the statement that inserts its lead (src/leads/lead-batch.repository.ts), whose own
 * mark covers it, so an import pays nothing here. An order matters only when it is or was delivered.
 */
export const MARK_FUNCTIONS = `
    CREATE FUNCTION kpi_mark_leads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kpi_dirty (account_id, day)
          SELECT DISTINCT account_id, (created_at AT TIME ZONE 'UTC')::date FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kpi_dirty (account_id, day)
          SELECT DISTINCT account_id, (created_at AT TIME ZONE 'UTC')::date FROM old_rows;
      ELSE
        INSERT INTO kpi_dirty (account_id, day)
          SELECT DISTINCT x.account_id, (x.created_at AT TIME ZONE 'UTC')::date
            FROM old_rows o JOIN new_rows n ON n.id = o.id
           CROSS JOIN LATERAL (VALUES (o.account_id, o.created_at), (n.account_id, n.created_at)) x(account_id, created_at)
           WHERE (o.status, o.city, o.data, o.created_at, o.account_id)
                 IS DISTINCT FROM (n.status, n.city, n.data, n.created_at, n.account_id);
      END IF;
      RETURN NULL;
    END $$;

    ${markFunction('kpi_mark_lead_products', {
      insert: 'SELECT account_id, lead_id FROM new_rows',
      delete: 'SELECT account_id, lead_id FROM old_rows',
      update: `${BOTH_VERSIONS} WHERE (o.sku, o.lead_id) IS DISTINCT FROM (n.sku, n.lead_id)`,
    })}

    ${markFunction('kpi_mark_lead_histories', {
      insert:
        'SELECT account_id, lead_id FROM new_rows WHERE changed_by_user_id IS NOT NULL AND old_status IS NOT NULL',
      delete: 'SELECT account_id, lead_id FROM old_rows WHERE changed_by_user_id IS NOT NULL',
      update: `${BOTH_VERSIONS}
        WHERE (o.changed_by_user_id, o.changed_at, o.lead_id) IS DISTINCT FROM (n.changed_by_user_id, n.changed_at, n.lead_id)`,
    })}

    ${markFunction('kpi_mark_orders', {
      insert: "SELECT account_id, lead_id FROM new_rows WHERE status = 'delivered' AND lead_id IS NOT NULL",
      delete: "SELECT account_id, lead_id FROM old_rows WHERE status = 'delivered' AND lead_id IS NOT NULL",
      update: `${BOTH_VERSIONS}
        WHERE ((o.status = 'delivered') <> (n.status = 'delivered')
               OR (o.status = 'delivered' AND o.lead_id IS DISTINCT FROM n.lead_id))
          AND x.lead_id IS NOT NULL`,
    })}

    -- a truncated source table: every day the rollup holds is recomputed by the next fold
    CREATE FUNCTION kpi_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO kpi_dirty (account_id, day) SELECT DISTINCT account_id, day FROM kpi_daily WHERE dimension = 'status';
      RETURN NULL;
    END $$;`;

/**
 * `kpi_fold()` takes every mark and recomputes the marked account-days; it answers how many it recomputed.
 * `kpi_rebuild()` recomputes every day of every account. Both run in the caller's transaction, one at a time
 * (a second waits for the first and then finds the marks gone). Marks appended by writes that commit meanwhile stay
 * for the next fold. Readers keep reading the previous rows until the fold commits.
 */
export const FOLD_FUNCTIONS = `
    CREATE FUNCTION kpi_fold() RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      accounts integer[];
      days date[];
    BEGIN
      PERFORM pg_advisory_xact_lock(${FOLD_LOCK});
      WITH marks AS (DELETE FROM kpi_dirty RETURNING account_id, day, lead_ids, first_id, last_id),
        ids AS (SELECT DISTINCT unnest(lead_ids) AS id FROM marks WHERE lead_ids IS NOT NULL),
        marked AS (
          SELECT account_id, day FROM marks WHERE day IS NOT NULL
          UNION
          SELECT l.account_id, (l.created_at AT TIME ZONE 'UTC')::date FROM leads l WHERE l.id IN (SELECT id FROM ids)
          UNION
          SELECT l.account_id, (l.created_at AT TIME ZONE 'UTC')::date
            FROM marks m JOIN leads l ON l.id BETWEEN m.first_id AND m.last_id AND l.account_id = m.account_id
           WHERE m.first_id IS NOT NULL)
      SELECT coalesce(array_agg(account_id), '{}'), coalesce(array_agg(day), '{}') INTO accounts, days FROM marked;
      DELETE FROM kpi_daily k USING unnest(accounts, days) AS d(account_id, day)
       WHERE k.account_id = d.account_id AND k.dimension IN (${DIMENSIONS}) AND k.day = d.day;
      INSERT INTO kpi_daily SELECT * FROM kpi_rows(accounts, days);
      UPDATE kpi_state SET folded_at = now();
      RETURN cardinality(days);
    END $$;

    CREATE FUNCTION kpi_rebuild() RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      accounts integer[];
      days date[];
    BEGIN
      PERFORM pg_advisory_xact_lock(${FOLD_LOCK});
      DELETE FROM kpi_dirty;
      DELETE FROM kpi_daily;
      SELECT coalesce(array_agg(account_id), '{}'), coalesce(array_agg(day), '{}') INTO accounts, days
        FROM (SELECT DISTINCT account_id, (created_at AT TIME ZONE 'UTC')::date AS day FROM leads) d;
      INSERT INTO kpi_daily SELECT * FROM kpi_rows(accounts, days);
      UPDATE kpi_state SET folded_at = now();
      RETURN cardinality(days);
    END $$;`;

export const down: Migration = async ({ context: db }) => {
  for (const table of ['leads', 'lead_products', 'lead_histories', 'orders'])
    for (const op of ['insert', 'update', 'delete', 'truncate'])
      await db.query(`DROP TRIGGER IF EXISTS ${table}_kpi_${op} ON ${table}`);
  await db.query(`
    DROP FUNCTION kpi_rebuild();
    DROP FUNCTION kpi_fold();
    DROP FUNCTION kpi_forget();
    DROP FUNCTION kpi_mark_orders();
    DROP FUNCTION kpi_mark_lead_histories();
    DROP FUNCTION kpi_mark_lead_products();
    DROP FUNCTION kpi_mark_leads();
    DROP FUNCTION kpi_rows(integer[], date[]);
    DROP TABLE kpi_state;
    DROP TABLE kpi_dirty;
    DROP TABLE kpi_daily;`);
};
