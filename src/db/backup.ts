import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ConfigError, ensureDataDir } from '../config.js';
import { PRIVATE_DATA_DIRS } from '../private-files.js';
import { readArchive, writeArchive, type ArchiveWriter } from './backup-archive.js';
import type { ArchiveEntry } from './backup-layout.js';
import { writeRestoredConfig } from './backup-config.js';
import { manifestDifferences } from './backup-layout.js';
import { baseBackup } from './base-backup.js';
import { startEmbedded } from './embedded.js';

/**
 * Backup and restore of an embedded installation: the database (a consistent online base backup, base-backup.ts) and
 * the files under DATA_DIR that belong to it, in one archive (backup-archive.ts). docs/operations.md, "Backups".
 */

const MANIFEST = 'leadflow-backup.json';
/** 2: the manifest lists every entry (files with size and SHA-256). 1: made before it did, unverifiable. */
const FORMAT = 'leadflow-backup/2';
const UNVERIFIED_FORMAT = 'leadflow-backup/1';
/** DATA_DIR's own files that travel with the database: its credentials, the development session secret. */
const DATA_FILES = ['pg-credentials.json', 'session-secret'];

export interface BackupManifest {
  format: string;
  created_at: string;
  /** Every transaction committed before this time is in the backup. */
  consistent_at: string;
  start_lsn: string;
  stop_lsn: string;
  postgres: string;
  /** Every other entry of the archive, in its order (format 2). */
  entries?: ArchiveEntry[];
}

/** The files of DATA_DIR beside the database (credentials, exports, uploads, the mail outbox), parents first. */
async function addDataFiles(archive: ArchiveWriter, dataDir: string, rel: string): Promise<number> {
  const abs = path.join(dataDir, rel);
  let st: fs.Stats;
  try {
    st = await fs.promises.lstat(abs);
  } catch {
    return 0; // an export removed meanwhile, or a directory never made
  }
  if (st.isFile()) {
    await archive.addFile(rel, abs, st.size, st.mode & 0o777);
    return 1;
  }
  if (!st.isDirectory()) return 0;
  await archive.addDirectory(rel, st.mode & 0o777);
  let n = 0;
  for (const name of (await fs.promises.readdir(abs)).sort())
    n += await addDataFiles(archive, dataDir, `${rel}/${name}`);
  return n;
}

/**
 * Backs up the embedded installation under `dataDir` into `file` (which must not exist) while it runs: joins the
 * running server, or starts it for the time of the backup.
 */
export async function takeBackup(dataDir: string, file: string) {
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new ConfigError(`${target} already exists: name a new file for the backup`);
  if (!fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION')))
    throw new ConfigError(`No embedded database under ${dataDir} (DATA_DIR): nothing to back up`);
  const archive = writeArchive(target); // first: a FILE.partial already there is refused before the server starts
  let server: Awaited<ReturnType<typeof startEmbedded>>;
  try {
    server = await startEmbedded(dataDir);
  } catch (err) {
    await archive.abort();
    throw err;
  }
  const client = new pg.Client({ connectionString: server.adminUrl, application_name: 'leadflow-backup' });
  client.on('error', () => {}); // a failure surfaces through the query that meets it
  try {
    await client.connect();
    const base = await baseBackup(client, path.join(dataDir, 'pg'), archive, 'pg');
    let files = base.files;
    for (const rel of [...DATA_FILES, ...PRIVATE_DATA_DIRS]) files += await addDataFiles(archive, dataDir, rel);
    const manifest: BackupManifest = {
      format: FORMAT,
      created_at: new Date().toISOString(),
      consistent_at: base.consistentAt.toISOString(),
      start_lsn: base.startLsn,
      stop_lsn: base.stopLsn,
      postgres: fs.readFileSync(path.join(dataDir, 'pg', 'PG_VERSION'), 'utf8').trim(),
      entries: [...archive.entries],
    };
    await archive.addText(MANIFEST, JSON.stringify(manifest, null, 2) + '\n');
    const data = archive.bytes;
    const { bytes } = await archive.close();
    return { file: target, bytes, data_bytes: data, files, ...manifest, entries: undefined };
  } catch (err) {
    await archive.abort();
    throw err;
  } finally {
    await client.end().catch(() => {});
    await server.stop();
  }
}

/** Whether a directory holds anything (a missing one does not). */
function hasEntries(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** As root the embedded server runs as `postgres`, which must own its data directory (embedded.ts). */
function giveToPostgresUser(dir: string): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  const [uid, gid] = [id('-u'), id('-g')];
  const own = (p: string) => {
    fs.chownSync(p, uid, gid);
    if (fs.lstatSync(p).isDirectory()) for (const n of fs.readdirSync(p)) own(path.join(p, n));
  };
  own(dir);
}

/** What the restored database holds, read through a server started on it (which first replays the backup's WAL). */
async function startAndCount(dataDir: string) {
  const server = await startEmbedded(dataDir);
  const client = new pg.Client({ connectionString: server.url });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ leads: number; orders: number; accounts: number; migration: string }>(
      `SELECT (SELECT count(*) FROM leads)::int AS leads, (SELECT count(*) FROM orders)::int AS orders,
              (SELECT count(*) FROM accounts)::int AS accounts, (SELECT max(name) FROM schema_migrations) AS migration`,
    );
    return rows[0];
  } finally {
    await client.end().catch(() => {});
    await server.stop();
  }
}

/** Credentials of the form the embedded server writes (embedded.ts): a plain role name and a password. */
function checkCredentials(dataDir: string): void {
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'pg-credentials.json'), 'utf8'));
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(String(creds?.user)) || typeof creds?.password !== 'string')
    throw new Error('pg-credentials.json is not the credentials file the embedded server writes');
}

/**
 * Unpacks `source` into the empty `dataDir` and checks it before any server starts on it: the layout (readArchive),
 * the manifest (every entry listed, same size and SHA-256, nothing added), the credentials file; then writes the
 * server's configuration itself (backup-config.ts). An archive made before manifests (format 1) passes only with
 * `unverified`. A refusal removes everything unpacked.
 */
async function unpackChecked(source: string, dataDir: string, unverified: boolean) {
  try {
    const found = await readArchive(source, dataDir);
    const manifest: BackupManifest = JSON.parse(await fs.promises.readFile(path.join(dataDir, MANIFEST), 'utf8'));
    if (manifest.format === UNVERIFIED_FORMAT && !unverified)
      throw new Error(
        'it was made before backups carried a manifest of their files, so they cannot be verified. ' +
          'Take a new backup, or add --unverified to restore or check it without that verification',
      );
    if (manifest.format === FORMAT) {
      const differences = manifestDifferences(manifest.entries ?? [], found, MANIFEST);
      if (differences.length)
        throw new Error(
          `its files do not match its manifest (${differences.length}): ${differences.slice(0, 5).join(', ')}` +
            (differences.length > 5 ? ', …' : ''),
        );
    } else if (manifest.format !== UNVERIFIED_FORMAT) throw new Error('it holds no LeadFlow database');
    if (!fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))) throw new Error('it holds no LeadFlow database');
    checkCredentials(dataDir);
    const { dropped } = writeRestoredConfig(path.join(dataDir, 'pg'));
    return { manifest, dropped };
  } catch (err) {
    for (const name of fs.readdirSync(dataDir)) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
    throw new ConfigError(`${source} is not a LeadFlow backup that can be restored: ${(err as Error).message}`);
  }
}

/**
 * Restores a backup into `dataDir`, which must be empty or missing: unpacks and checks it (unpackChecked), starts the
 * embedded server on it once (PostgreSQL replays the backup's WAL up to its consistent point) and answers what the
 * database holds.
 */
export async function restoreBackup(file: string, dataDir: string, { unverified = false } = {}) {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new ConfigError(`No backup file at ${source}`);
  if (hasEntries(dataDir))
    throw new ConfigError(
      `DATA_DIR ${dataDir} is not empty: a restore writes only into an empty (or new) directory. ` +
        'Set DATA_DIR to a new directory, or move this one away, and run the restore again.',
    );
  ensureDataDir(dataDir);
  const { manifest, dropped } = await unpackChecked(source, dataDir, unverified);
  giveToPostgresUser(path.join(dataDir, 'pg'));
  const holds = await startAndCount(dataDir).catch((err: Error) => {
    throw new ConfigError(`The backup was unpacked into ${dataDir}, but its database did not start: ${err.message}`);
  });
  return {
    restored: dataDir,
    consistent_at: manifest.consistent_at,
    created_at: manifest.created_at,
    verified: manifest.format === FORMAT,
    ...(dropped.length ? { dropped_settings: dropped } : {}),
    ...holds,
  };
}
