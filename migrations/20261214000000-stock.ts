import type { Migration } from '../src/db/migrator.js';
import { recordFunction } from './20261202000000-webhook-events.js';

const EVENTS = "'lead.created','lead.status_changed','order.created','order.status_changed','import.finished'";

/**
 * `stock.low` (docs/webhooks.md): a level whose available (on_hand − reserved) falls to its product's threshold or
 * under from above it, once per crossing; the statement's levels are read in the old and the new state.
 */
const STOCK_LOW = `
      SELECT n.account_id, 'stock.low' AS event, 'stock:' || n.product_id || ':' || n.warehouse_id AS sequence_key,
             n.product_id AS ord,
             jsonb_build_object('stock', jsonb_build_object(
               'sku', p.sku, 'name', p.name, 'warehouse', w.code, 'on_hand', n.on_hand, 'reserved', n.reserved,
               'available', n.on_hand - n.reserved, 'available_before', o.on_hand - o.reserved,
               'low_stock_threshold', p.low_stock_threshold)) AS payload
        FROM new_rows n JOIN old_rows o USING (account_id, product_id, warehouse_id)
        JOIN products p ON p.id = n.product_id JOIN warehouses w ON w.id = n.warehouse_id
       WHERE n.on_hand - n.reserved <= p.low_stock_threshold AND o.on_hand - o.reserved > p.low_stock_threshold`;

/**
 * Stock (issue 43, docs/stock.md): warehouses per account (every account has `MAIN`, made by a trigger for new ones),
 * a ledger of movements that is never edited, and the levels it adds up to, per product and warehouse, kept in the
 * same transaction as each movement (src/stock/stock.repository.ts). A movement changes `on_hand` by `quantity` when
 * its kind moves goods (receipt, adjustment, shipment, return) and `reserved` by `reserved_change` (reservation,
 * release, and a shipment ending its reservation): `npm run cli -- stock:check` adds them up again.
 *
 * Orders open when this runs (new, pushed) get their reservations now, in their account's MAIN warehouse, so a
 * cancellation or a shipment later finds what to end.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE warehouses (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      code VARCHAR(30) NOT NULL,
      name VARCHAR(100) NOT NULL,
      is_default BOOLEAN NOT NULL DEFAULT false,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX warehouses_account_code_key ON warehouses (account_id, code);
    CREATE UNIQUE INDEX warehouses_account_default_key ON warehouses (account_id) WHERE is_default;

    INSERT INTO warehouses (account_id, code, name, is_default) SELECT id, 'MAIN', 'Main warehouse', true FROM accounts;
    CREATE FUNCTION account_main_warehouse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO warehouses (account_id, code, name, is_default) VALUES (NEW.id, 'MAIN', 'Main warehouse', true);
      RETURN NULL;
    END $$;
    CREATE TRIGGER accounts_main_warehouse AFTER INSERT ON accounts
      FOR EACH ROW EXECUTE FUNCTION account_main_warehouse();

    ALTER TABLE accounts ADD COLUMN stock_policy VARCHAR(10) NOT NULL DEFAULT 'track'
      CHECK (stock_policy IN ('track', 'enforce'));
    ALTER TABLE products ADD COLUMN low_stock_threshold INTEGER NOT NULL DEFAULT 0 CHECK (low_stock_threshold >= 0);
    -- GET /stock's total is active products × warehouses: each account's count of active products is kept here by
    -- statement triggers on products, so a page never counts the catalogue (0.4 ms at 10,000 products)
    CREATE TABLE product_counts (
      account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      active INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO product_counts (account_id, active)
      SELECT account_id, count(*) FILTER (WHERE active) FROM products GROUP BY account_id;
    CREATE FUNCTION product_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO product_counts AS c (account_id, active)
          SELECT account_id, count(*) FILTER (WHERE active) FROM new_rows GROUP BY account_id ORDER BY account_id
        ON CONFLICT (account_id) DO UPDATE SET active = c.active + EXCLUDED.active;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE product_counts c SET active = c.active - d.n
          FROM (SELECT account_id, count(*) FILTER (WHERE active) AS n FROM old_rows GROUP BY account_id) d
         WHERE c.account_id = d.account_id AND d.n <> 0;
      ELSE
        INSERT INTO product_counts AS c (account_id, active)
          SELECT account_id, sum(d) FROM (SELECT account_id, 1 AS d FROM new_rows WHERE active
                                          UNION ALL SELECT account_id, -1 FROM old_rows WHERE active) x
           GROUP BY account_id HAVING sum(d) <> 0 ORDER BY account_id
        ON CONFLICT (account_id) DO UPDATE SET active = c.active + EXCLUDED.active;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER products_counts_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION product_counts_keep();
    CREATE TRIGGER products_counts_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION product_counts_keep();
    CREATE TRIGGER products_counts_update AFTER UPDATE ON products
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION product_counts_keep();
    -- the warehouse an order ships from; null: the account's default (MAIN), which never changes
    ALTER TABLE orders ADD COLUMN warehouse_id INTEGER REFERENCES warehouses(id) ON DELETE SET NULL;

    CREATE TABLE stock_levels (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
      warehouse_id INTEGER NOT NULL REFERENCES warehouses(id) ON DELETE CASCADE,
      on_hand INTEGER NOT NULL DEFAULT 0,
      reserved INTEGER NOT NULL DEFAULT 0,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, product_id, warehouse_id)
    );
    CREATE INDEX stock_levels_warehouse_idx ON stock_levels (warehouse_id);
    CREATE INDEX stock_levels_product_idx ON stock_levels (product_id);

    CREATE TABLE stock_movements (
      id BIGSERIAL PRIMARY KEY,
      -- no foreign keys: the ledger's rows are made from the rows they name, in the same transaction, and a key check
      -- per row cost more than the rest of the insert (five checks: 45 of 64 ms for 3,000 rows); what the keys' ON
      -- DELETE did, the statement triggers below do once per delete (docs/stock.md, "The model")
      account_id INTEGER NOT NULL,
      product_id INTEGER,
      warehouse_id INTEGER NOT NULL,
      sku VARCHAR(100) NOT NULL,
      kind VARCHAR(12) NOT NULL
        CHECK (kind IN ('receipt', 'adjustment', 'reservation', 'release', 'shipment', 'return')),
      quantity INTEGER NOT NULL,
      reserved_change INTEGER NOT NULL DEFAULT 0,
      order_id BIGINT,
      order_reference VARCHAR(40),
      reason VARCHAR(500),
      changed_by VARCHAR(255) NOT NULL,
      user_id INTEGER,
      created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
    );
    -- the ledger newest first (ids follow the inserts), per account
    CREATE INDEX stock_movements_account_idx ON stock_movements (account_id, id DESC);
    CREATE INDEX stock_movements_product_idx ON stock_movements (product_id, warehouse_id);
    CREATE INDEX stock_movements_order_idx ON stock_movements (order_id) WHERE order_id IS NOT NULL;

    -- the ledger is never edited: a correction is a new movement. Only the foreign keys' own ON DELETE SET NULL may
    -- touch a row (a deleted order or user): every other column stays as written.
    CREATE FUNCTION stock_movements_refuse_edit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (NEW.id, NEW.account_id, NEW.warehouse_id, NEW.sku, NEW.kind, NEW.quantity, NEW.reserved_change,
          NEW.order_reference, NEW.reason, NEW.changed_by, NEW.created_at)
         IS NOT DISTINCT FROM (OLD.id, OLD.account_id, OLD.warehouse_id, OLD.sku, OLD.kind, OLD.quantity,
          OLD.reserved_change, OLD.order_reference, OLD.reason, OLD.changed_by, OLD.created_at)
         AND (NEW.order_id IS NULL OR NEW.order_id = OLD.order_id)
         AND (NEW.user_id IS NULL OR NEW.user_id = OLD.user_id)
         AND (NEW.product_id IS NULL OR NEW.product_id = OLD.product_id) THEN
        RETURN NEW;
      END IF;
      RAISE EXCEPTION 'stock movements are never edited; record a new movement';
    END $$;
    CREATE TRIGGER stock_movements_no_edit BEFORE UPDATE ON stock_movements
      FOR EACH ROW EXECUTE FUNCTION stock_movements_refuse_edit();

    -- what foreign keys would have done, once per deleting statement: an account's ledger goes with it; a deleted
    -- product, order or login leaves its movements, without the id (the sku, the reference and the name stay)
    CREATE FUNCTION stock_movements_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'accounts' THEN
        DELETE FROM stock_movements m USING old_rows o WHERE m.account_id = o.id;
      -- (rows of an account being deleted are left for the accounts' branch, which deletes them; a login's are found
      -- through its account: the ledger has no index on user_id, which would cost every insert)
      ELSIF TG_TABLE_NAME = 'products' THEN
        UPDATE stock_movements m SET product_id = NULL FROM old_rows o
         WHERE m.product_id = o.id AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id);
      ELSIF TG_TABLE_NAME = 'orders' THEN
        UPDATE stock_movements m SET order_id = NULL FROM old_rows o
         WHERE m.order_id = o.id AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id);
      ELSE
        UPDATE stock_movements m SET user_id = NULL FROM old_rows o
         WHERE m.account_id = o.account_id AND m.user_id = o.id
           AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id);
        -- an admin records in any account: its rows are looked for everywhere (deleting an admin is rare)
        UPDATE stock_movements m SET user_id = NULL FROM old_rows o WHERE o.role = 'admin' AND m.user_id = o.id;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER accounts_stock_movements AFTER DELETE ON accounts REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stock_movements_forget();
    CREATE TRIGGER products_stock_movements AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stock_movements_forget();
    CREATE TRIGGER orders_stock_movements AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stock_movements_forget();
    CREATE TRIGGER users_stock_movements AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION stock_movements_forget();

    INSERT INTO stock_movements (account_id, product_id, warehouse_id, sku, kind, quantity, reserved_change, order_id,
                                 order_reference, reason, changed_by)
    SELECT o.account_id, op.product_id, w.id, op.sku, 'reservation', op.quantity, op.quantity, o.id,
           o.reference, 'Open when stock began', 'system'
      FROM orders o JOIN order_products op ON op.order_id = o.id
      JOIN warehouses w ON w.account_id = o.account_id AND w.is_default
     WHERE o.status IN ('new', 'pushed') AND op.product_id IS NOT NULL;

    INSERT INTO stock_levels (account_id, product_id, warehouse_id, reserved)
    SELECT account_id, product_id, warehouse_id, sum(reserved_change)
      FROM stock_movements GROUP BY account_id, product_id, warehouse_id;

    -- stock counts are imports of their own kind (import_runs); stock.low is an event endpoints may subscribe to
    ALTER TABLE import_runs DROP CONSTRAINT import_runs_kind_check,
      ADD CONSTRAINT import_runs_kind_check CHECK (kind IN ('leads', 'orders', 'stock'));
    ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_events_check,
      ADD CONSTRAINT webhook_endpoints_events_check
        CHECK (cardinality(events) > 0 AND events <@ ARRAY[${EVENTS},'stock.low']);
    ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_check,
      ADD CONSTRAINT webhook_deliveries_event_check CHECK (event IN (${EVENTS},'stock.low'));
  `);
  await db.query(recordFunction('webhooks_emit_stock_levels', STOCK_LOW));
  await db.query(`
    CREATE TRIGGER stock_levels_webhooks AFTER UPDATE ON stock_levels
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION webhooks_emit_stock_levels();
    ALTER TABLE stock_levels ENABLE ALWAYS TRIGGER stock_levels_webhooks;`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DELETE FROM webhook_events WHERE event = 'stock.low';
    DELETE FROM webhook_deliveries WHERE event = 'stock.low';
    DELETE FROM webhook_endpoints WHERE events <@ ARRAY['stock.low']::text[];
    UPDATE webhook_endpoints SET events = array_remove(events, 'stock.low') WHERE 'stock.low' = ANY (events);
    ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_check,
      ADD CONSTRAINT webhook_deliveries_event_check CHECK (event IN (${EVENTS}));
    ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_events_check,
      ADD CONSTRAINT webhook_endpoints_events_check CHECK (cardinality(events) > 0 AND events <@ ARRAY[${EVENTS}]);
    DELETE FROM import_runs WHERE kind = 'stock';
    ALTER TABLE import_runs DROP CONSTRAINT import_runs_kind_check,
      ADD CONSTRAINT import_runs_kind_check CHECK (kind IN ('leads', 'orders'));
    DROP TRIGGER accounts_stock_movements ON accounts;
    DROP TRIGGER products_stock_movements ON products;
    DROP TRIGGER orders_stock_movements ON orders;
    DROP TRIGGER users_stock_movements ON users;
    DROP FUNCTION stock_movements_forget();
    DROP TABLE stock_movements;
    DROP FUNCTION stock_movements_refuse_edit();
    DROP TABLE stock_levels;
    DROP FUNCTION webhooks_emit_stock_levels();
    ALTER TABLE orders DROP COLUMN warehouse_id;
    DROP TRIGGER products_counts_insert ON products;
    DROP TRIGGER products_counts_delete ON products;
    DROP TRIGGER products_counts_update ON products;
    DROP FUNCTION product_counts_keep();
    DROP TABLE product_counts;
    ALTER TABLE products DROP COLUMN low_stock_threshold;
    ALTER TABLE accounts DROP COLUMN stock_policy;
    DROP TRIGGER accounts_main_warehouse ON accounts;
    DROP FUNCTION account_main_warehouse();
    DROP TABLE warehouses;
  `);
};
