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

// Connection-level failures: the server is down, restarting, refusing or unreachable. SQLSTATE class 08 is "connection
// exception"; 57P01-57P03 are an administrator shutdown, a crash shutdown and "the database system is starting up".
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03']);
const UNAVAILABLE_MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout expired|ConnectionManager\.getConnection was called after/i;

/**
 * True when an error means the database cannot be reached right now (the request may succeed if retried), as opposed
 * to an error in the statement. Sequelize wraps connection failures in its ConnectionError family; pg raises its own.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { name?: string; code?: string; message?: string; parent?: unknown; original?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (typeof e.name === 'string' && /^Sequelize(Connection\w*Error|HostNotReachableError|HostNotFoundError)$/.test(e.name) || e.name === 'ConnectionAcquireTimeoutError') return true;
    if (e.code && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
    e = (e.parent ?? e.original) as typeof e;
  }
  return false;
}

/** Fails with one line that names DATABASE_URL when the server cannot be reached. */
async function probe(url: string, fromEnv: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {}); // a failure surfaces through connect() or the query; unhandled, the event would end the process
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

/**
 * Runs `fn` with a pg client from Sequelize's own pool (for COPY streams, which Sequelize cannot express). The client
 * goes back to the pool afterwards, or is closed if `fn` failed (a broken COPY can leave the connection mid-protocol).
 */
export async function withPgClient<T>(sequelize: Sequelize, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const manager = (sequelize as unknown as {
    connectionManager: { getConnection(o: object): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void>; destroyConnection(c: pg.Client): Promise<void> };
  }).connectionManager;
  const client = await manager.getConnection({ type: 'write' });
  let ok = false;
  try {
    const result = await fn(client);
    ok = true;
    return result;
  } finally {
    await (ok ? manager.releaseConnection(client) : manager.destroyConnection(client));
  }
}

/**
 * A statement with its `$n` placeholders replaced by quoted literals, for the statements that take no parameters
 * (COPY). Strings go through pg's escapeLiteral; numbers must be finite; dates are written as ISO timestamps.
 */
export function inlineParams(sql: string, params: unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const v = params[Number(n) - 1];
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (v instanceof Date) return pg.escapeLiteral(v.toISOString());
    if (typeof v === 'string') return pg.escapeLiteral(v);
    throw new Error(`cannot inline parameter $${n} of type ${typeof v}`);
  });
}
