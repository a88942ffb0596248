import type { Migration } from '../src/db/migrator.js';

/**
 * The intake log stops being a disk an anonymous visitor can fill (issue 40, finding 2): what is only counted (a
 * rate-limited submission, a shop delivery with a bad signature, a refusal past the source's hourly cap) is one row per
 * source, outcome, client address and minute, its `attempts` counted up, no payload (src/sources/intake.repository.ts).
 * `counted_minute` is set on those rows only; the unique index is what the upsert meets.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    ALTER TABLE lead_intake
      ADD COLUMN attempts integer NOT NULL DEFAULT 1 CHECK (attempts > 0),
      ADD COLUMN counted_minute timestamptz;
    CREATE UNIQUE INDEX lead_intake_counted_key ON lead_intake (source_id, counted_minute, outcome, client_ip)
      NULLS NOT DISTINCT WHERE counted_minute IS NOT NULL;`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP INDEX lead_intake_counted_key;
    ALTER TABLE lead_intake DROP COLUMN counted_minute, DROP COLUMN attempts;`);
};
