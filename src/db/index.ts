import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { within } from '../timers.js';
import { startEmbedded, type EmbeddedLog, type EmbeddedServer } from './embedded.js';

// BIGINT ids and counts come back as JS numbers; every id here stays far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface Database {
  sequelize: Sequelize;
  url: string;
  embedded: EmbeddedServer | null;
  close(): Promise<void>;
}

// Connection-level failures: the server is down, restarting, refusing or unreachable. 08000/08001/08003/08004/08006
// are the connection exceptions (08P01, a protocol violation, is a bug and not among them); 57P01-57P03 are an
// administrator shutdown, a crash shutdown and "the database system is starting up".
const UNAVAILABLE_CODES = new Set([
  // a connection that cannot be had, as the read pool's plain pg reports it (Sequelize wraps these itself)
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  '53300', // too_many_connections
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
]);
// What pg itself says when a connection dies under a client (these errors carry no code).
const UNAVAILABLE_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect', // pg-pool: no connection within connectionTimeoutMillis
]);

/**
 * True when an error means the database cannot be reached right now (the request may succeed if retried), as opposed
 * to an error in the statement. Only Sequelize's connection errors and the errors of pg and its sockets count, found
 * on the error or its Sequelize `parent`; an error of another service (a carrier, a mail server) is never one.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: string; message?: string; parent?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  if (
    typeof e.name === 'string' &&
    /^Sequelize(Connection\w*|HostNotReachable|HostNotFound|InvalidConnection)Error$/.test(e.name)
  )
    return true;
  const pgError = (e.name === 'SequelizeDatabaseError' ? e.parent : e) as typeof e | undefined;
  if (!pgError) return false;
  if (typeof pgError.code === 'string' && UNAVAILABLE_CODES.has(pgError.code)) return true;
  return typeof pgError.message === 'string' && UNAVAILABLE_MESSAGES.has(pgError.message);
}

/** Fails with one line that names DATABASE_URL when the server cannot be reached. */
async function probe(url: string, fromEnv: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  // a failure surfaces through connect() or the query; unhandled, the event would end the process
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const why = (err as Error).message || (err as NodeJS.ErrnoException).code || 'connection failed';
    throw new ConfigError(
      fromEnv
        ? `Invalid environment variable DATABASE_URL: cannot connect (${why})`
        : `Embedded database unreachable: ${why}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * PostgreSQL at DATABASE_URL, or the embedded server under DATA_DIR when it is unset. `embedded` is that server when
 * the caller started it already (process start-up does, to load its modules meanwhile).
 */
export async function openDatabase(
  config: Config,
  opts: { database?: string; log?: EmbeddedLog; embedded?: Promise<EmbeddedServer> } = {},
): Promise<Database> {
  let embedded: EmbeddedServer | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await (opts.embedded ?? startEmbedded(config.dataDir, opts.database, opts.log));
    url = embedded.url;
  }
  await probe(url, !!config.databaseUrl);
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: false,
    pool: { max: config.databasePoolMax, min: 0, idle: 10_000, acquire: 30_000 },
    // A server that stops answering (a cut network) is noticed by TCP keep-alive instead of never; a new connection
    // gives up after 5 s, so requests answer 503 instead of waiting for the pool's 30 s.
    dialectOptions: { keepAlive: true, connectionTimeoutMillis: 5000 },
    define: { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  });
  const manager = managerOf(sequelize);
  const reads = new pg.Pool({
    connectionString: url,
    max: config.databasePoolMax,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    // values parsed as Sequelize's own connections parse them, in the time zone they use (UTC)
    types: { getTypeParser: manager.getTypeParser.bind(manager) } as pg.CustomTypesConfig,
    options: '-c TimeZone=UTC',
  });
  // a connection that dies while idle (a server restart) is dropped by the pool; unheard, it would end the process
  reads.on('error', (err) => opts.log?.(`read pool: ${err.message}`));
  readPools.set(sequelize, reads);
  return {
    sequelize,
    url,
    embedded,
    async close() {
      // close() waits for connections in use; one held by a job handed back to the queue (or by a server that stopped
      // answering) must not keep the process from stopping.
      await Promise.all([within(sequelize.close(), 2000), within(reads.end(), 2000)]);
      // the owner hands the server over to another process using it, or stops it; the others let go of it
      await embedded?.stop();
    },
  };
}

type ConnectionManager = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown;
  getConnection(o: object): Promise<pg.Client>;
  releaseConnection(c: pg.Client): Promise<void>;
  destroyConnection(c: pg.Client): Promise<void>;
};
const managerOf = (sequelize: Sequelize) =>
  (sequelize as unknown as { connectionManager: ConnectionManager }).connectionManager;

/**
 * Each database's pool for reads outside transactions: plain pg, beside Sequelize's pool (which serves writes and
 * transactions), each of DATABASE_POOL_MAX connections. Acquiring from Sequelize's pool and sending through it cost a
 * list request more CPU than the rest of its handling (docs/performance.md).
 */
const readPools = new WeakMap<Sequelize, pg.Pool>();

/** The read pool's connections in use, idle, and requests waiting for one (for /metrics). */
export function readPoolState(sequelize: Sequelize): { using: number; available: number; waiting: number } | null {
  const p = readPools.get(sequelize);
  return p ? { using: p.totalCount - p.idleCount, available: p.idleCount, waiting: p.waitingCount } : null;
}

/**
 * Rows of one statement outside any transaction, sent with plain pg on the read pool (or Sequelize's pool for an
 * instance opened elsewhere). Errors are pg's own (isDatabaseUnavailable knows both kinds); statements in a
 * transaction go through Sequelize, whose typed errors (a foreign key, a unique key) their callers read. The statement
 * still goes to Sequelize's `logging` when one is set, so statement captures see it.
 */
export async function readQuery<T>(sequelize: Sequelize, sql: string, params: unknown[], name?: string): Promise<T[]> {
  const log = (sequelize as unknown as { options: { logging: unknown } }).options.logging;
  if (typeof log === 'function') log(`Executing (read): ${sql}`, { bind: params });
  const reads = readPools.get(sequelize);
  // a named statement is prepared once per connection, and after a few runs PostgreSQL keeps one plan for it (a
  // statement whose plan costs more than its run: docs/performance.md, "GET /stock")
  const query = name ? { name, text: sql, values: params } : { text: sql, values: params };
  // pool.query, not connect + query: it listens for the error a connection cut mid-query emits, which on a client
  // held by hand would be unhandled and end the process
  if (reads) return (await reads.query(query)).rows as T[];
  const manager = managerOf(sequelize);
  const client = await manager.getConnection({ type: 'read' });
  try {
    return (await client.query(query)).rows as T[];
  } finally {
    await manager.releaseConnection(client);
  }
}

/**
 * Runs `fn` with a pg client from Sequelize's own pool (for COPY streams, which Sequelize cannot express). The client
 * goes back to the pool afterwards, or is closed if `fn` failed (a broken COPY can leave the connection mid-protocol).
 */
export async function withPgClient<T>(sequelize: Sequelize, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const manager = managerOf(sequelize);
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
