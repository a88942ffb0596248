import type { Migration } from '../src/db/migrator.js';
import { COUNTRY_ZONES, FALLBACK_ZONE } from '../src/time-zones.js';

/**
 * Each account gets the IANA time zone its times are shown, typed and exported in (issue 32, docs/decisions.md "Time
 * zones"). Existing accounts start from their phone country (MA → Africa/Casablanca, FR → Europe/Paris, …, else UTC);
 * new ones get it from the application the same way (src/accounts/account.model.ts), so the column keeps no default.
 */
export const up: Migration = async ({ context: db }) => {
  const countries = Object.keys(COUNTRY_ZONES);
  await db.query('ALTER TABLE accounts ADD COLUMN time_zone text');
  await db.query(
    `UPDATE accounts a SET time_zone = COALESCE(z.zone, $3)
       FROM accounts b LEFT JOIN unnest($1::text[], $2::text[]) AS z(country, zone) ON z.country = b.phone_country
      WHERE a.id = b.id`,
    { bind: [countries, countries.map((c) => COUNTRY_ZONES[c]), FALLBACK_ZONE] },
  );
  await db.query('ALTER TABLE accounts ALTER COLUMN time_zone SET NOT NULL');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE accounts DROP COLUMN time_zone');
};
