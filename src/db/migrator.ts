import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';

export type Migration = (params: { name: string; context: Sequelize }) => Promise<void>;

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_KEY = 727_001;

export function createMigrator(sequelize: Sequelize) {
  return new Umzug({
    migrations: {
      glob: ['*.{ts,js}', { cwd: MIGRATIONS_DIR, ignore: ['*.d.ts'] }],
      resolve: ({ name, path: file, context }) => ({
        name: name.replace(/\.(ts|js)$/, ''),
        up: async () => (await import(file!)).up({ name, context }),
        down: async () => (await import(file!)).down({ name, context }),
      }),
    },
    context: sequelize,
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

/** Serialises migrations and the first-start seed across processes that start together on one database. */
export async function withMigrationLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // A dropped connection releases the lock on the server; the error surfaces through the query that needed it.
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await fn();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

export async function migrateUp(sequelize: Sequelize, url: string): Promise<string[]> {
  return withMigrationLock(url, async () => (await createMigrator(sequelize).up()).map((m) => m.name));
}

/** Reverts the last migration, or every one with `to: 0`. */
export async function migrateDown(sequelize: Sequelize, url: string, all = false): Promise<string[]> {
  return withMigrationLock(url, async () =>
    (await createMigrator(sequelize).down(all ? { to: 0 } : undefined)).map((m) => m.name),
  );
}
