import type { Migration } from '../src/db/migrator.js';

/**
 * The blocklist of an account (issue 33, docs/decisions.md "Blocklist"): a phone, in its E.164 form, that the seller
 * (or an admin) blocked with a reason. A new lead from a blocked phone is created `canceled` with a system history entry
 * naming the block; unblocking (deleting the row) changes nothing already stored. One row per account and phone: the
 * lead insert looks a batch's phones up by (account_id, phone_normalized).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE blocked_phones (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      phone_normalized VARCHAR(100) NOT NULL,
      phone VARCHAR(100) NOT NULL,
      reason VARCHAR(500) NOT NULL,
      created_by VARCHAR(255) NOT NULL,
      created_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      CONSTRAINT blocked_phones_account_phone_key UNIQUE (account_id, phone_normalized)
    );
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE blocked_phones');
};
