import type { Migration } from '../src/db/migrator.js';

export const up: Migration = async ({ context: db }) => {
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await db.query('CREATE EXTENSION IF NOT EXISTS btree_gin');
  await db.query('CREATE EXTENSION IF NOT EXISTS pgcrypto');
};

export const down: Migration = async () => {
  // Extensions may be shared with other schemas of the same database; leaving them is harmless.
};
