import type { Migration } from '../src/db/migrator.js';

/**
 * The duplicate check looks a batch's phones up among the leads: with the phone as the index's first column it is
 * one probe per phone whatever the planner believes about the account. With (account_id, phone_normalized, …) and no
 * statistics yet for a new account (a big first import), the planner took any account index and read all the
 * account's recent leads for every batch. Equality lookups on (account_id, phone_normalized) use it as before.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('CREATE INDEX leads_phone_account_idx ON leads (phone_normalized, account_id, created_at DESC)');
  await db.query('DROP INDEX leads_account_phone_idx');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('CREATE INDEX leads_account_phone_idx ON leads (account_id, phone_normalized, created_at DESC)');
  await db.query('DROP INDEX leads_phone_account_idx');
};
