import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';

export type Migration = (params: { name: string; context: Sequelize }) => Promise<void>;

// migrations/*.ts beside the sources; dist/migrations/*.js beside the compiled code (npm run build).
const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const MIGRATION_FILE = /\.(ts|js)$/;
// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_KEY = 727_001;

export async function createMigrator(sequelize: Sequelize) {
  // Umzug (and the command-line parser it ships) takes 0.1–0.2 s to load: only loaded when there is work to do.
  const { SequelizeStorage, Umzug } = await import('umzug');
  return new Umzug({
    migrations: {
      glob: ['*.{ts,js}', { cwd: MIGRATIONS_DIR, ignore: ['*.d.ts'] }],
      resolve: ({ name, path: file, context }) => ({
        name: name.replace(MIGRATION_FILE, ''),
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

/**
 * True when every migration file is recorded as applied (two short queries): a restart with nothing to migrate then
 * loads no Umzug and takes no lock. Anything else (a pending file, a new database) goes the locked way.
 */
async function allApplied(sequelize: Sequelize): Promise<boolean> {
  const [{ present }] = await sequelize.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
    { type: QueryTypes.SELECT },
  );
  if (!present) return false;
  const rows = await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', {
    type: QueryTypes.SELECT,
  });
  const applied = new Set(rows.map((row) => row.name));
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((file) => MIGRATION_FILE.test(file) && !file.endsWith('.d.ts'))
    .every((file) => applied.has(file.replace(MIGRATION_FILE, '')));
}

export async function migrateUp(sequelize: Sequelize, url: string): Promise<string[]> {
  if (await allApplied(sequelize)) return [];
  return withMigrationLock(url, async () => (await (await createMigrator(sequelize)).up()).map((m) => m.name));
}

/** Reverts the last migration, or every one with `to: 0`. */
export async function migrateDown(sequelize: Sequelize, url: string, all = false): Promise<string[]> {
  return withMigrationLock(url, async () =>
    (await (await createMigrator(sequelize)).down(all ? { to: 0 } : undefined)).map((m) => m.name),
  );
}
