import type { Migration } from '../src/db/migrator.js';

/**
 * The account an admin last worked in the panel's work queue (issue 41): the queue opens on it at the next visit,
 * whatever the session, instead of on the admin's own account (which has no leads). One row per user; it goes with the
 * user or the account (cascades). A table of its own, not a column of `users`: the panel reads users, and a seller
 * who lists their account's logins must not learn which other account an admin worked (src/queue/queue-account.ts).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE queue_accounts (
      user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      worked_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      chosen_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX queue_accounts_worked_account_idx ON queue_accounts (worked_account_id);
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE queue_accounts');
};
