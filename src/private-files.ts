import fs from 'node:fs';
import path from 'node:path';

/**
 * Files under DATA_DIR that hold tenants' data or live credentials (exports, uploads, the mail outbox with its reset
 * links) are the service user's only: directories 0700, files 0600. Set per directory and per file rather than by a
 * process-wide umask 077, because the embedded PostgreSQL started as root runs as another user and must still enter
 * DATA_DIR (0711) and read the package's binaries.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The subdirectories of DATA_DIR kept private. */
export const PRIVATE_DATA_DIRS = ['exports', 'uploads', 'outbox'] as const;

/** Creates `dir` (and missing parents) as 0700, and makes it 0700 if it existed with other modes. */
export async function privateDir(dir: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await fs.promises.chmod(dir, PRIVATE_DIR_MODE);
}

/** The synchronous privateDir, for set-up code that runs before the first request. */
export function privateDirSync(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates an empty 0600 file (or empties an existing one and makes it 0600), for a writer that opens it by name. */
export async function emptyPrivateFile(file: string): Promise<void> {
  await fs.promises.writeFile(file, '', { mode: PRIVATE_FILE_MODE });
  await fs.promises.chmod(file, PRIVATE_FILE_MODE);
}

/** Directories 0700 and files 0600 under `root`, itself included; symbolic links are left alone. */
function lockDownTree(root: string): void {
  let entries: fs.Dirent[];
  try {
    if (!fs.lstatSync(root).isDirectory()) return;
    fs.chmodSync(root, PRIVATE_DIR_MODE);
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const e of entries) {
    const p = path.join(root, e.name);
    if (e.isDirectory()) lockDownTree(p);
    else if (e.isFile()) fs.chmodSync(p, PRIVATE_FILE_MODE);
  }
}

/**
 * At start: the private directories of DATA_DIR (those written by an earlier version included) become 0700, their
 * files 0600. DATA_DIR itself keeps its mode (the embedded server may need to enter it).
 */
export function lockDownDataDir(dataDir: string): void {
  for (const name of PRIVATE_DATA_DIRS) lockDownTree(path.join(dataDir, name));
}
