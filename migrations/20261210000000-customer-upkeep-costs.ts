import type { Migration } from '../src/db/migrator.js';
import {
  DELTA_FUNCTIONS,
  deltaFunction,
  LEADS_INSERT,
  LEADS_ON_CONFLICT,
  LEADS_UPSERT,
  ORDER_CHANGE,
  refreshFrom,
  tableRefresh,
} from './20261208100000-customers.js';

/**
 * Three costs of the customer upkeep (migration 20261208100000), found by `npm run bench -- customers` and the import
 * bench (docs/performance.md "Customer upkeep").
 *
 * The update and delete triggers refresh the "latest" fields of the keys
 * a statement moved (another phone, account, city or creation time) or removed. Their DELETE of keys left without
 * leads and orders was planned from the transition tables' guessed size: PostgreSQL chose to read every customer and
 * keep those with no leads and no orders (none), so every status change read the whole table; a carrier callback of
 * 500 orders spent 85 ms there at 320,000 customers, a single status change grows with the table the same way.
 *
 * Now the keys are collected first (arrays `ka`, `kp`). None, the common case of a status change: nothing more runs.
 * Otherwise the refresh and the DELETE start from `unnest(ka, kp)`, whose size the planner knows, and probe the unique
 * (account_id, phone_normalized) index per key.
 *
 * The orders' update trigger then gives a customer whose last order changed status that status. Its UPDATE joined
 * customers to the transition tables, and PostgreSQL 18 read every customer for it: 85 ms of a 500-order carrier
 * callback at 100,000 customers. It now starts from the changed orders collected the same way.
 *
 * The leads' insert trigger of a statement of BULK_LEADS leads or more (an import batch, a REST bulk create) first
 * inserts its customers plainly: ON CONFLICT's speculative insertion costs 8 of 40 ms per 5,000 new customers
 * (PostgreSQL 18, 2 cores). When one of the phones is a customer already, or becomes one in another transaction
 * meanwhile (the plain insert waits for it), the unique key refuses the insert, which is rolled back (its block is a
 * subtransaction) and made again as the upsert of every smaller statement. Keys stay in order either way.
 */
const BULK_LEADS = 100;
const UNNESTED = 'unnest(ka, kp) AS k(account_id, phone_normalized)';

const keyRefresh = (keys: string) => `
      SELECT array_agg(k.account_id), array_agg(k.phone_normalized) INTO ka, kp
        FROM (SELECT DISTINCT k.account_id, k.phone_normalized FROM (${keys}) k
               WHERE k.phone_normalized IS NOT NULL) k;
      IF ka IS NOT NULL THEN
        ${refreshFrom(UNNESTED, UNNESTED)}
      END IF;`;

const LAST_ORDER_STATUS = `
      SELECT array_agg(n.account_id), array_agg(n.phone_normalized), array_agg(n.id), array_agg(n.status)
        INTO ka, kp, ki, ks
        FROM (SELECT n.* ${ORDER_CHANGE}) n WHERE n.phone_normalized IS NOT NULL;
      IF ka IS NOT NULL THEN
        UPDATE customers c SET last_order_status = k.status
          FROM unnest(ka, kp, ki, ks) AS k(account_id, phone_normalized, id, status)
         WHERE c.account_id = k.account_id AND c.phone_normalized = k.phone_normalized AND c.last_order_id = k.id
           AND c.last_order_status IS DISTINCT FROM k.status;
      END IF;`;

const LEADS_INSERT_FIRST_PLAIN = `
    CREATE OR REPLACE FUNCTION customers_leads_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (SELECT count(*) FROM new_rows) >= ${BULK_LEADS} THEN
        BEGIN
          ${LEADS_INSERT};
          RETURN NULL;
        EXCEPTION WHEN unique_violation THEN
          NULL; -- a phone is a customer already: the upsert below
        END;
      END IF;
      ${LEADS_INSERT}
      ${LEADS_ON_CONFLICT}
      RETURN NULL;
    END $$;`;

export const up: Migration = async ({ context: db }) => {
  await db.query(LEADS_INSERT_FIRST_PLAIN);
  for (const [name, deltas, keys, more] of DELTA_FUNCTIONS) {
    const then = name === 'customers_orders_update' ? LAST_ORDER_STATUS : more;
    await db.query(deltaFunction(keyRefresh)([name, deltas, keys, then]));
  }
};

export const down: Migration = async ({ context: db }) => {
  await db.query(LEADS_UPSERT);
  for (const f of DELTA_FUNCTIONS) await db.query(deltaFunction(tableRefresh)(f));
};
