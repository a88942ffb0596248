import type { Migration } from '../src/db/migrator.js';

/**
 * `leads_account_city_idx` (account_id, city_id) serves the lead list's city filter and the cities' ON DELETE SET
 * NULL, both looking for one city id. A lead without one (every imported lead, most others: the city is typed text)
 * gave it an entry no lookup reads, one btree insert per lead. It now holds the leads with a city id only; a condition
 * `city_id = $n` implies it, so both lookups keep the index.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    DROP INDEX leads_account_city_idx;
    CREATE INDEX leads_account_city_idx ON leads (account_id, city_id) WHERE city_id IS NOT NULL;`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP INDEX leads_account_city_idx;
    CREATE INDEX leads_account_city_idx ON leads (account_id, city_id);`);
};
