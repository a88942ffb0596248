import type { Migration } from '../src/db/migrator.js';

/**
 * The (account_id, reference) indexes of lead_histories and order_histories go: every written lead or order paid an
 * entry in them, and their one use, the history list's reference filter, finds a reference's entries through its
 * lead or order instead (the parent's reference key, then the (lead_id) / (order_id) index).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('DROP INDEX lead_histories_account_reference_idx');
  await db.query('DROP INDEX order_histories_account_reference_idx');
};

export const down: Migration = async ({ context: db }) => {
  await db.query(
    'CREATE INDEX order_histories_account_reference_idx ON order_histories (account_id, order_reference, changed_at DESC)',
  );
  await db.query(
    'CREATE INDEX lead_histories_account_reference_idx ON lead_histories (account_id, lead_reference, changed_at DESC)',
  );
};
