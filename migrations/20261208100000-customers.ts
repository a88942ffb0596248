import type { Migration } from '../src/db/migrator.js';

/**
 * The customer record (issue 33, docs/decisions.md "Customers"): per account and E.164 phone, the figures of its leads
 * and orders, kept current in the transaction of every write to leads and orders (no nightly batch), so a call, the
 * REST show and a webhook read one row instead of aggregating the histories. A lead or order without an E.164 form
 * (an uncallable phone) has no customer; an order counts for its own phone (POST /orders makes orders without leads).
 *
 * - counts (leads, confirmed, orders, delivered, returned, canceled) move by deltas: statement-level triggers over the
 *   transition tables aggregate the new rows minus the old rows per key and apply them with
 *   INSERT … ON CONFLICT DO UPDATE SET n = customers.n + EXCLUDED.n, so concurrent writers never lose an update;
 *   the keys of a statement are applied in (account_id, phone_normalized) order, so two batches do not deadlock;
 * - the "latest" fields (first and last seen, the latest lead's time and city, the last order) follow an insert of
 *   leads or orders by comparison (LEAST / GREATEST, the newest new order against the stored last one: an import pays
 *   no lookup), and a status change by the last order's status alone; a move (another phone, account, city or creation
 *   time) and a delete re-read them from the tables for the keys touched, one index probe each, in a statement after
 *   the one that locked those keys, so it sees every writer that committed before it (READ COMMITTED takes a snapshot
 *   per statement of the function);
 * - a key whose leads and orders both reach 0 loses its row (a moved phone, deleted leads, a deleted account: there is
 *   no foreign key, as for row_counts, because a cascade deletes the leads of an account while the account goes);
 * - the triggers fire ALWAYS: the lead batch insert runs with session_replication_role = replica
 *   (src/leads/lead-batch.repository.ts);
 * - a TRUNCATE of leads or orders rebuilds the table from what is left (`customers_rebuild()`, also the backfill).
 *
 * An update of leads touches customers only when it changes a lead's account, phone, confirmed-ness, city or creation
 * time; of orders, its account, phone, status, city or creation time (a push's attempts and errors cost a join).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    ALTER TABLE accounts
      ADD COLUMN risk_min_returns integer NOT NULL DEFAULT 2 CHECK (risk_min_returns BETWEEN 1 AND 1000),
      ADD COLUMN risk_min_orders integer NOT NULL DEFAULT 3 CHECK (risk_min_orders BETWEEN 1 AND 1000),
      ADD COLUMN risk_min_delivery_rate integer NOT NULL DEFAULT 50
        CHECK (risk_min_delivery_rate BETWEEN 0 AND 100);

    CREATE TABLE customers (
      id bigserial PRIMARY KEY,
      account_id integer NOT NULL,
      phone_normalized varchar(100) NOT NULL,
      leads integer NOT NULL DEFAULT 0,
      confirmed integer NOT NULL DEFAULT 0,
      orders integer NOT NULL DEFAULT 0,
      delivered integer NOT NULL DEFAULT 0,
      returned integer NOT NULL DEFAULT 0,
      canceled integer NOT NULL DEFAULT 0,
      first_seen_at timestamptz,
      last_seen_at timestamptz,
      last_lead_at timestamptz,
      city varchar(100),
      last_order_id bigint,
      last_order_reference varchar(12),
      last_order_status varchar(20),
      last_order_at timestamptz,
      CONSTRAINT customers_account_phone_key UNIQUE (account_id, phone_normalized)
    );
    -- the panel's list, newest customers first
    CREATE INDEX customers_account_seen_idx ON customers (account_id, last_seen_at DESC);
    -- the last order of a phone, and its first and last order times: one probe per key
    CREATE INDEX orders_account_phone_idx ON orders (account_id, phone_normalized, created_at DESC, id DESC);

    ${FUNCTIONS}
  `);
  for (const table of ['leads', 'orders'])
    for (const op of ['insert', 'update', 'delete']) {
      const refs =
        { insert: 'NEW TABLE AS new_rows', delete: 'OLD TABLE AS old_rows' }[op] ??
        'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      await db.query(`
        CREATE TRIGGER ${table}_customers_${op} AFTER ${op.toUpperCase()} ON ${table} REFERENCING ${refs}
          FOR EACH STATEMENT EXECUTE FUNCTION customers_${table}_${op}();
        ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${table}_customers_${op};`);
    }
  for (const table of ['leads', 'orders'])
    await db.query(`
      CREATE TRIGGER ${table}_customers_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION customers_forget();
      ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${table}_customers_truncate;`);
  await db.query('SELECT customers_rebuild()');
};

/** Applies `deltas` (account_id, phone_normalized, and the counts that change) per key, in key order. */
const applyDeltas = (deltas: string) => `
        INSERT INTO customers AS c (account_id, phone_normalized, leads, confirmed, orders, delivered, returned, canceled)
          SELECT account_id, phone_normalized, sum(leads), sum(confirmed), sum(orders), sum(delivered), sum(returned),
                 sum(canceled)
            FROM (${deltas}) d
           WHERE phone_normalized IS NOT NULL
           GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (account_id, phone_normalized) DO UPDATE SET
          leads = c.leads + EXCLUDED.leads, confirmed = c.confirmed + EXCLUDED.confirmed,
          orders = c.orders + EXCLUDED.orders, delivered = c.delivered + EXCLUDED.delivered,
          returned = c.returned + EXCLUDED.returned, canceled = c.canceled + EXCLUDED.canceled;`;

/** The count columns of a leads row `r` (sign `s`: 1 or -1) as a delta. */
const leadDelta = (r: string, s: string) =>
  `SELECT ${r}.account_id, ${r}.phone_normalized, ${s} AS leads, ${s} * (${r}.status = 'confirmed')::int AS confirmed,
          0 AS orders, 0 AS delivered, 0 AS returned, 0 AS canceled`;

/** The count columns of an orders row `r` (sign `s`) as a delta. */
const orderDelta = (r: string, s: string) =>
  `SELECT ${r}.account_id, ${r}.phone_normalized, 0 AS leads, 0 AS confirmed, ${s} AS orders,
          ${s} * (${r}.status = 'delivered')::int AS delivered, ${s} * (${r}.status = 'returned')::int AS returned,
          ${s} * (${r}.status = 'canceled')::int AS canceled`;

/**
 * The "latest" fields of the keys in the relation `k` (account_id, phone_normalized) re-read from the tables, then the
 * keys of `gone` left without leads and orders removed. The keys are locked already (applyDeltas ran first, over the
 * same keys).
 */
export const refreshFrom = (k: string, gone: string) => `
        UPDATE customers c SET
          first_seen_at = LEAST(fl.at, fo.at), last_seen_at = GREATEST(ll.created_at, lo.created_at),
          last_lead_at = ll.created_at, city = CASE WHEN ll.id IS NOT NULL THEN ll.city ELSE lo.city END,
          last_order_id = lo.id, last_order_reference = lo.reference, last_order_status = lo.status,
          last_order_at = lo.created_at
          FROM ${k}
          LEFT JOIN LATERAL (SELECT l.created_at AS at FROM leads l
                              WHERE l.phone_normalized = k.phone_normalized AND l.account_id = k.account_id
                              ORDER BY l.created_at LIMIT 1) fl ON true
          LEFT JOIN LATERAL (SELECT l.id, l.created_at, l.city FROM leads l
                              WHERE l.phone_normalized = k.phone_normalized AND l.account_id = k.account_id
                              ORDER BY l.created_at DESC, l.id DESC LIMIT 1) ll ON true
          LEFT JOIN LATERAL (SELECT o.created_at AS at FROM orders o
                              WHERE o.account_id = k.account_id AND o.phone_normalized = k.phone_normalized
                              ORDER BY o.created_at LIMIT 1) fo ON true
          LEFT JOIN LATERAL (SELECT o.id, o.reference, o.status, o.created_at, o.city FROM orders o
                              WHERE o.account_id = k.account_id AND o.phone_normalized = k.phone_normalized
                              ORDER BY o.created_at DESC, o.id DESC LIMIT 1) lo ON true
         WHERE c.account_id = k.account_id AND c.phone_normalized = k.phone_normalized;
        DELETE FROM customers c USING ${gone}
         WHERE c.account_id = k.account_id AND c.phone_normalized = k.phone_normalized
           AND c.leads = 0 AND c.orders = 0;`;

/**
 * The refresh of the keys `keys` (a query) as this migration wrote it; migration 20261210000000 replaced it, because
 * its DELETE could read the whole table (a carrier callback of 500 orders: 85 ms at 320,000 customers).
 */
export const tableRefresh = (keys: string) =>
  refreshFrom(
    `(SELECT DISTINCT k.account_id, k.phone_normalized FROM (${keys}) k WHERE k.phone_normalized IS NOT NULL) k`,
    `(${keys}) k`,
  );

/** The rows of an update whose change matters, as `o` (old) and `n` (new) joined by id. */
const changed = (columns: string) => `
          FROM old_rows o JOIN new_rows n ON n.id = o.id
         WHERE (${columns.replaceAll('?', 'o')}) IS DISTINCT FROM (${columns.replaceAll('?', 'n')})`;

/** An update that moves counts (account, phone, confirmed-ness or status) or the "latest" fields. */
const LEAD_CHANGE = changed("?.account_id, ?.phone_normalized, ?.status = 'confirmed', ?.city, ?.created_at");
export const ORDER_CHANGE = changed('?.account_id, ?.phone_normalized, ?.status, ?.city, ?.created_at');
/**
 * An update that moves a row to another key or changes what the "latest" fields are made of: only these re-read the
 * tables. A status change alone (a confirmation, a carrier callback) moves counts and, for an order that is its
 * customer's last, the last order's status (LAST_ORDER_STATUS), with no lookup.
 */
const LEAD_MOVE = changed('?.account_id, ?.phone_normalized, ?.city, ?.created_at');
const ORDER_MOVE = LEAD_MOVE;

const LAST_ORDER_STATUS = `
        UPDATE customers c SET last_order_status = n.status
          FROM (SELECT n.* ${ORDER_CHANGE}) n
         WHERE c.account_id = n.account_id AND c.phone_normalized = n.phone_normalized AND c.last_order_id = n.id
           AND c.last_order_status IS DISTINCT FROM n.status;`;

/** A trigger function's name, the deltas it applies, the keys whose "latest" fields it refreshes, and what follows. */
type DeltaFunction = [name: string, deltas: string, keys: string, more?: string];

/**
 * A trigger function applying `deltas`, then refreshing the "latest" fields of `keys` by `refresh`, then `more`. `ka`,
 * `kp`, `ki` and `ks` may hold keys (account ids, phones) and orders (ids, statuses) for the refresh and `more`.
 */
export const deltaFunction =
  (refresh: (keys: string) => string) =>
  ([name, deltas, keys, more = '']: DeltaFunction) => `
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      ka integer[];
      kp text[];
      ki bigint[];
      ks text[];
    BEGIN
      ${applyDeltas(deltas)}
      ${refresh(keys)}
      ${more}
      RETURN NULL;
    END $$;`;

/** The newest new order of a key (EXCLUDED) is newer than the stored last order of `c` (or there is none). */
const NEWER = `(c.last_order_id IS NULL
                     OR (EXCLUDED.last_order_at, EXCLUDED.last_order_id) > (c.last_order_at, c.last_order_id))`;

/**
 * New orders: counts, and the "latest" fields by comparison (the newest new order per key against the stored last
 * order), without a lookup: a confirmation or an import's confirmed leads make orders that are the newest anyway.
 * The city follows orders only for a customer without leads.
 */
const ORDERS_INSERT = `
    CREATE FUNCTION customers_orders_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO customers AS c (account_id, phone_normalized, orders, delivered, returned, canceled, first_seen_at,
                                  last_seen_at, city, last_order_id, last_order_reference, last_order_status,
                                  last_order_at)
        SELECT g.account_id, g.phone_normalized, g.orders, g.delivered, g.returned, g.canceled, g.first_at,
               l.created_at, l.city, l.id, l.reference, l.status, l.created_at
          FROM (SELECT account_id, phone_normalized, count(*) AS orders,
                       count(*) FILTER (WHERE status = 'delivered') AS delivered,
                       count(*) FILTER (WHERE status = 'returned') AS returned,
                       count(*) FILTER (WHERE status = 'canceled') AS canceled, min(created_at) AS first_at
                  FROM new_rows WHERE phone_normalized IS NOT NULL GROUP BY 1, 2) g
          JOIN (SELECT DISTINCT ON (account_id, phone_normalized) account_id, phone_normalized, id, reference, status,
                       city, created_at
                  FROM new_rows WHERE phone_normalized IS NOT NULL
                 ORDER BY account_id, phone_normalized, created_at DESC, id DESC) l
            ON l.account_id = g.account_id AND l.phone_normalized = g.phone_normalized
         ORDER BY 1, 2
      ON CONFLICT (account_id, phone_normalized) DO UPDATE SET
        orders = c.orders + EXCLUDED.orders, delivered = c.delivered + EXCLUDED.delivered,
        returned = c.returned + EXCLUDED.returned, canceled = c.canceled + EXCLUDED.canceled,
        first_seen_at = LEAST(c.first_seen_at, EXCLUDED.first_seen_at),
        last_seen_at = GREATEST(c.last_seen_at, EXCLUDED.last_seen_at),
        city = CASE WHEN c.last_lead_at IS NULL AND ${NEWER} THEN EXCLUDED.city ELSE c.city END,
        ${['id', 'reference', 'status', 'at']
          .map((f) => `last_order_${f} = CASE WHEN ${NEWER} THEN EXCLUDED.last_order_${f} ELSE c.last_order_${f} END`)
          .join(',\n        ')};
      RETURN NULL;
    END $$;`;

const KEYS_OLD = 'SELECT account_id, phone_normalized FROM old_rows';

/** The deltas of an update: the old version of each changed row taken away, the new one added. */
const bothVersions = (delta: (r: string, s: string) => string, change: string) =>
  `${delta('o', '-1')} ${change} UNION ALL ${delta('n', '1')} ${change}`;

/** The keys of both versions of each changed row of an update. */
const changedKeys = (change: string) =>
  `SELECT o.account_id, o.phone_normalized ${change} UNION SELECT n.account_id, n.phone_normalized ${change}`;

/**
 * Every customer computed again from leads and orders (the backfill; after a TRUNCATE). It locks the table, so no
 * writer's deltas interleave with the rebuild.
 */
const REBUILD = `
    CREATE FUNCTION customers_rebuild() RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      n integer;
    BEGIN
      LOCK TABLE customers IN EXCLUSIVE MODE;
      DELETE FROM customers;
      INSERT INTO customers (account_id, phone_normalized, leads, confirmed, orders, delivered, returned, canceled,
                             first_seen_at, last_seen_at, last_lead_at, city, last_order_id, last_order_reference,
                             last_order_status, last_order_at)
        WITH l AS (
          SELECT account_id, phone_normalized, count(*) AS leads, count(*) FILTER (WHERE status = 'confirmed') AS confirmed,
                 min(created_at) AS first_at, max(created_at) AS last_at,
                 (array_agg(city ORDER BY created_at DESC, id DESC))[1] AS city
            FROM leads WHERE phone_normalized IS NOT NULL GROUP BY 1, 2
        ), o AS (
          SELECT account_id, phone_normalized, count(*) AS orders,
                 count(*) FILTER (WHERE status = 'delivered') AS delivered,
                 count(*) FILTER (WHERE status = 'returned') AS returned,
                 count(*) FILTER (WHERE status = 'canceled') AS canceled,
                 min(created_at) AS first_at,
                 (array_agg(ARRAY[id::text, reference, status, city, created_at::text]
                            ORDER BY created_at DESC, id DESC))[1:1] AS last
            FROM orders WHERE phone_normalized IS NOT NULL GROUP BY 1, 2
        )
        SELECT coalesce(l.account_id, o.account_id), coalesce(l.phone_normalized, o.phone_normalized),
               coalesce(l.leads, 0), coalesce(l.confirmed, 0), coalesce(o.orders, 0), coalesce(o.delivered, 0),
               coalesce(o.returned, 0), coalesce(o.canceled, 0), LEAST(l.first_at, o.first_at),
               GREATEST(l.last_at, o.last[1][5]::timestamptz), l.last_at,
               CASE WHEN l.leads IS NOT NULL THEN l.city ELSE o.last[1][4] END,
               o.last[1][1]::bigint, o.last[1][2], o.last[1][3], o.last[1][5]::timestamptz
          FROM l FULL JOIN o ON o.account_id = l.account_id AND o.phone_normalized = l.phone_normalized
         ORDER BY 1, 2;
      GET DIAGNOSTICS n = ROW_COUNT;
      RETURN n;
    END $$;`;

/** The trigger functions of updates and deletes: deltas, then a refresh of the rows moved or removed. */
export const DELTA_FUNCTIONS: DeltaFunction[] = [
  ['customers_leads_delete', `${leadDelta('r', '-1')} FROM old_rows r`, KEYS_OLD],
  ['customers_leads_update', bothVersions(leadDelta, LEAD_CHANGE), changedKeys(LEAD_MOVE)],
  ['customers_orders_delete', `${orderDelta('r', '-1')} FROM old_rows r`, KEYS_OLD],
  ['customers_orders_update', bothVersions(orderDelta, ORDER_CHANGE), changedKeys(ORDER_MOVE), LAST_ORDER_STATUS],
];

/** New leads' customers, per key in key order: the insert of both versions of `customers_leads_insert`. */
export const LEADS_INSERT = `
      INSERT INTO customers AS c (account_id, phone_normalized, leads, confirmed, first_seen_at, last_seen_at,
                                  last_lead_at, city)
        SELECT account_id, phone_normalized, count(*), count(*) FILTER (WHERE status = 'confirmed'),
               min(created_at), max(created_at), max(created_at),
               (array_agg(city ORDER BY created_at DESC, id DESC))[1]
          FROM new_rows WHERE phone_normalized IS NOT NULL
         GROUP BY 1, 2 ORDER BY 1, 2`;

/** What a new lead adds to a customer that exists (or that another transaction made meanwhile). */
export const LEADS_ON_CONFLICT = `
      ON CONFLICT (account_id, phone_normalized) DO UPDATE SET
        leads = c.leads + EXCLUDED.leads, confirmed = c.confirmed + EXCLUDED.confirmed,
        first_seen_at = LEAST(c.first_seen_at, EXCLUDED.first_seen_at),
        last_seen_at = GREATEST(c.last_seen_at, EXCLUDED.last_seen_at),
        last_lead_at = GREATEST(c.last_lead_at, EXCLUDED.last_lead_at),
        city = CASE WHEN c.last_lead_at IS NULL OR EXCLUDED.last_lead_at >= c.last_lead_at
                    THEN EXCLUDED.city ELSE c.city END;`;

/** New leads' customers by an upsert per key (migration 20261210000000 inserts a bulk statement's plainly first). */
export const LEADS_UPSERT = `
    CREATE OR REPLACE FUNCTION customers_leads_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${LEADS_INSERT}
      ${LEADS_ON_CONFLICT}
      RETURN NULL;
    END $$;`;

const FUNCTIONS = `
    ${LEADS_UPSERT}

    ${DELTA_FUNCTIONS.map(deltaFunction(tableRefresh)).join('\n')}
    ${ORDERS_INSERT}

    ${REBUILD}

    CREATE FUNCTION customers_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM customers_rebuild();
      RETURN NULL;
    END $$;`;

export const down: Migration = async ({ context: db }) => {
  for (const table of ['leads', 'orders'])
    for (const op of ['insert', 'update', 'delete', 'truncate'])
      await db.query(`DROP TRIGGER IF EXISTS ${table}_customers_${op} ON ${table}`);
  await db.query(`
    DROP FUNCTION customers_forget();
    DROP FUNCTION customers_rebuild();
    ${['leads', 'orders']
      .flatMap((t) => ['insert', 'update', 'delete'].map((op) => `DROP FUNCTION customers_${t}_${op}();`))
      .join('\n    ')}
    DROP INDEX orders_account_phone_idx;
    DROP TABLE customers;
    ALTER TABLE accounts DROP COLUMN risk_min_returns, DROP COLUMN risk_min_orders,
      DROP COLUMN risk_min_delivery_rate;`);
};
