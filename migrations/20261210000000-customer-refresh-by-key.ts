import type { Migration } from '../src/db/migrator.js';
import { DELTA_FUNCTIONS, deltaFunction, refreshFrom, tableRefresh } from './20261208100000-customers.js';

/**
 * The customer upkeep's update and delete triggers (migration 20261208100000) refresh the "latest" fields of the keys
 * a statement moved (another phone, account, city or creation time) or removed. Their DELETE of keys left without
 * leads and orders was planned from the transition tables' guessed size: PostgreSQL chose to read every customer and
 * keep those with no leads and no orders (none), so every status change read the whole table; a carrier callback of
 * 500 orders spent 85 ms there at 320,000 customers, a single status change grows with the table the same way.
 *
 * Now the keys are collected first (arrays `ka`, `kp`). None, the common case of a status change: nothing more runs.
 * Otherwise the refresh and the DELETE start from `unnest(ka, kp)`, whose size the planner knows, and probe the unique
 * (account_id, phone_normalized) index per key.
 */
const UNNESTED = 'unnest(ka, kp) AS k(account_id, phone_normalized)';

const keyRefresh = (keys: string) => `
      SELECT array_agg(k.account_id), array_agg(k.phone_normalized) INTO ka, kp
        FROM (SELECT DISTINCT k.account_id, k.phone_normalized FROM (${keys}) k
               WHERE k.phone_normalized IS NOT NULL) k;
      IF ka IS NOT NULL THEN
        ${refreshFrom(UNNESTED, UNNESTED)}
      END IF;`;

export const up: Migration = async ({ context: db }) => {
  for (const f of DELTA_FUNCTIONS) await db.query(deltaFunction(keyRefresh)(f));
};

export const down: Migration = async ({ context: db }) => {
  for (const f of DELTA_FUNCTIONS) await db.query(deltaFunction(tableRefresh)(f));
};
