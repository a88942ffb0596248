import type { Migration } from '../src/db/migrator.js';

/**
 * A lead created `canceled` because its phone was blocked (docs/decisions.md "Blocklist") is marked, so the duplicate
 * rule skips it: once the phone is unblocked, the next lead from it is `new`, not a `duplicate` of the leads the block
 * canceled. A constant default: PostgreSQL 11+ adds the column without rewriting the table.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE leads ADD COLUMN created_blocked BOOLEAN NOT NULL DEFAULT false');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE leads DROP COLUMN created_blocked');
};
