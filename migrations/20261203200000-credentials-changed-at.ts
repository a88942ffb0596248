import type { Migration } from '../src/db/migrator.js';

/**
 * When a user's password last changed (src/auth/credentials.ts): a login that checked the password read before a
 * change, and saved its session after the change ended the user's sessions, sees the mark move and is undone.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE users ADD COLUMN credentials_changed_at timestamptz');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE users DROP COLUMN credentials_changed_at');
};
