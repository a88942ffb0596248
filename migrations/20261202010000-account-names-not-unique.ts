import type { Migration } from '../src/db/migrator.js';

/**
 * Account names stop being unique across tenants: a unique name let a seller learn, from "already taken", which names
 * other tenants use (issue 29). Two shops may both be called "Acme"; the back office tells them apart by id, and the
 * account service still stops an admin from giving two accounts one name. The lookup by name keeps its index.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('DROP INDEX accounts_name_key');
  await db.query('CREATE INDEX accounts_name_idx ON accounts (lower(name))');
};

/** Fails while two accounts share a name: rename one (as an admin) first. */
export const down: Migration = async ({ context: db }) => {
  await db.query('DROP INDEX accounts_name_idx');
  await db.query('CREATE UNIQUE INDEX accounts_name_key ON accounts (lower(name))');
};
