import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { ConfigError } from '../config.js';
import { refusedEntry, type ArchiveEntry } from './backup-layout.js';

/**
 * The backup file: a gzip-compressed tar (tar-stream) whose paths are those under DATA_DIR (`pg/…`,
 * `pg-credentials.json`, `uploads/…`), plus `leadflow-backup.json`. Written to `<file>.partial` (mode 0600) and
 * renamed when complete, so a backup cut short never looks like one. A `<file>.partial` already there (a backup cut
 * short, or a link someone made) is refused before anything starts: the file is created, never followed nor reused.
 */

export interface ArchiveWriter {
  /** Adds the first `size` bytes of a file that may change while it is read (padded with zeros if it shrank). */
  addFile(name: string, file: string, size: number, mode: number): Promise<void>;
  addText(name: string, text: string, mode?: number): Promise<void>;
  addDirectory(name: string, mode: number): Promise<void>;
  /** Bytes of file data added so far. */
  readonly bytes: number;
  /** Every entry added so far, in order (for the manifest). */
  readonly entries: readonly ArchiveEntry[];
  close(): Promise<{ file: string; bytes: number }>;
  abort(): Promise<void>;
}

const CHUNK = 1024 * 1024;

/** Creates `partial` (mode 0600), never through a link nor over a file already there: that is refused in one line. */
function createPartial(partial: string): number {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  try {
    return fs.openSync(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    throw new ConfigError(
      `${partial} already exists (a backup cut short, or not ours): remove it, or name another file for the backup`,
    );
  }
}

type Fill = (sink: NodeJS.WritableStream, hash: crypto.Hash) => Promise<void>;

/** Adds one entry to `pack`, its bytes written by `fill` (which hashes them too), and records it in `entries`. */
function entryWriter(pack: tar.Pack, entries: ArchiveEntry[]) {
  return async (header: Partial<tar.Header> & { name: string }, fill: Fill) => {
    const hash = crypto.createHash('sha256');
    const done = new Promise<void>((resolve, reject) => {
      // streamx's Writable, used as Node's (write, 'drain', end)
      const sink = pack.entry(header, (err) => (err ? reject(err) : resolve())) as unknown as NodeJS.WritableStream;
      fill(sink, hash).then(() => sink.end(), reject);
    });
    await done;
    const { name, type, size = 0 } = header;
    if (type === 'directory') entries.push({ path: name, type, size: 0 });
    else entries.push({ path: name, type: 'file', size, sha256: hash.digest('hex') });
  };
}

export function writeArchive(target: string): ArchiveWriter {
  const partial = `${target}.partial`;
  const fd = createPartial(partial);
  const pack = tar.pack();
  const out = fs.createWriteStream(partial, { fd });
  // level 1: a backup runs beside the live service on the same cores; WAL and table files still shrink several-fold
  const written = pipeline(pack, zlib.createGzip({ level: 1 }), out);
  written.catch(() => {}); // awaited in close()/abort()
  let bytes = 0;
  const entries: ArchiveEntry[] = [];

  const entry = entryWriter(pack, entries);
  return {
    get bytes() {
      return bytes;
    },
    entries,
    async addFile(name, file, size, mode) {
      await entry({ name, size, mode, type: 'file', mtime: new Date() }, async (sink, hash) => {
        const handle = await fs.promises.open(file, 'r');
        try {
          for (let at = 0; at < size;) {
            const buffer = Buffer.alloc(Math.min(CHUNK, size - at));
            const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
            // a file that shrank meanwhile (a truncated table) is padded: WAL replay rewrites what changed
            const chunk = bytesRead ? buffer.subarray(0, bytesRead) : buffer;
            hash.update(chunk);
            if (!sink.write(chunk)) await once(sink, 'drain');
            at += bytesRead || buffer.length;
          }
        } finally {
          await handle.close();
        }
      });
      bytes += size;
    },
    async addText(name, text, mode = 0o600) {
      const data = Buffer.from(text);
      await entry({ name, size: data.length, mode, type: 'file', mtime: new Date() }, async (sink, hash) => {
        hash.update(data);
        sink.write(data);
      });
      bytes += data.length;
    },
    async addDirectory(name, mode) {
      await entry({ name, type: 'directory', mode, mtime: new Date() }, async () => {});
    },
    async close() {
      pack.finalize();
      await written;
      await fs.promises.rename(partial, target);
      return { file: target, bytes: (await fs.promises.stat(target)).size };
    },
    async abort() {
      pack.destroy();
      await written.catch(() => {});
      await fs.promises.rm(partial, { force: true });
    },
  };
}

/** The first path component of an archive entry that a restore may write; anything else is refused. */
export const RESTORABLE = new Set([
  'pg',
  'pg-credentials.json',
  'session-secret',
  'uploads',
  'exports',
  'outbox',
  'leadflow-backup.json',
]);

/** An entry's name without trailing slashes and `.` parts, or null when it is unsafe or not ours (absolute, `..`). */
export function cleanName(name: string): string | null {
  const clean = path.posix.normalize(name.replace(/\/+$/, ''));
  if (!clean || clean === '.' || path.posix.isAbsolute(clean) || clean.split('/').includes('..')) return null;
  if (clean.includes('\0') || !RESTORABLE.has(clean.split('/')[0])) return null;
  return clean;
}

/** Where an entry goes under `root`, or null when its name is unsafe or not ours (absolute, `..`, unknown). */
export function entryPath(root: string, name: string): string | null {
  const clean = cleanName(name);
  if (!clean) return null;
  const target = path.resolve(root, ...clean.split('/'));
  return target.startsWith(path.resolve(root) + path.sep) ? target : null;
}

/** Unpacked directories are 0700 and files 0600, whatever modes the archive names (docs/operations.md, "Backups"). */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Unpacks an archive written by writeArchive into `root`: directories and regular files only (no links, devices),
 * each at a checked path (entryPath) in the expected layout (backup-layout.ts), directories 0700 and files 0600.
 * Answers the entries unpacked, with each file's size and SHA-256. An entry of another kind, an unsafe name or one
 * outside the layout fails it, with a message naming the entry.
 */
export async function readArchive(file: string, root: string): Promise<Map<string, ArchiveEntry>> {
  const extract = tar.extract();
  const found = new Map<string, ArchiveEntry>();
  const feeding = pipeline(fs.createReadStream(file), zlib.createGunzip(), extract);
  feeding.catch(() => {}); // its error ends the loop below too
  for await (const entry of extract) {
    const { name, type } = entry.header;
    const target = entryPath(root, name);
    const clean = cleanName(name);
    if (!target || !clean || (type !== 'file' && type !== 'directory'))
      throw new Error(`it holds an entry a restore does not write: ${name} (${type})`);
    const refused = refusedEntry(clean, type);
    if (refused) throw new Error(`it holds ${clean}: ${refused}`);
    if (type === 'directory') {
      await fs.promises.mkdir(target, { recursive: true, mode: DIR_MODE });
      entry.resume();
      await fs.promises.chmod(target, DIR_MODE);
      found.set(clean, { path: clean, type, size: 0 });
    } else {
      await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
      const hash = crypto.createHash('sha256');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      // 'wx': never through a path that exists (a second entry of the same name, a link)
      await pipeline(entry, count, fs.createWriteStream(target, { mode: FILE_MODE, flags: 'wx' }));
      await fs.promises.chmod(target, FILE_MODE);
      found.set(clean, { path: clean, type, size, sha256: hash.digest('hex') });
    }
  }
  await feeding;
  return found;
}
