import type { Migration } from '../src/db/migrator.js';

/**
 * Saves of an account's settings in the current minute (issue 40, finding 3): one row per account, counted before
 * any work of a save, so one seller saving in a loop cannot make the service redo the account's time zone work
 * without end (src/accounts/settings-saves.repository.ts). In the database, so every web process counts on one figure
 * with or without Redis.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE account_settings_saves (
      account_id integer PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
      minute timestamptz NOT NULL,
      saves integer NOT NULL
    );`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE account_settings_saves');
};
