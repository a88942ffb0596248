import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { startEmbedded, type EmbeddedServer } from './embedded.js';

// BIGINT ids and counts come back as JS numbers; every id here stays far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface Database {
  sequelize: Sequelize;
  url: string;
  embedded: EmbeddedServer | null;
  close(): Promise<void>;
}

/** Fails with one line that names DATABASE_URL when the server cannot be reached. */
async function probe(url: string, fromEnv: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const why = (err as Error).message || (err as NodeJS.ErrnoException).code || 'connection failed';
    throw new ConfigError(fromEnv ? `Invalid environment variable DATABASE_URL: cannot connect (${why})` : `Embedded database unreachable: ${why}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** PostgreSQL at DATABASE_URL, or the embedded server under DATA_DIR when it is unset. */
export async function openDatabase(config: Config, opts: { database?: string; log?: (m: string) => void } = {}): Promise<Database> {
  let embedded: EmbeddedServer | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbedded(config.dataDir, opts.database, opts.log);
    url = embedded.url;
  }
  await probe(url, !!config.databaseUrl);
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: false,
    pool: { max: config.databasePoolMax, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  });
  return {
    sequelize,
    url,
    embedded,
    async close() {
      await sequelize.close();
      if (embedded?.owned) await embedded.stop();
    },
  };
}
