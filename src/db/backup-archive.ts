import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { ConfigError } from '../config.js';

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

export function writeArchive(target: string): ArchiveWriter {
  const partial = `${target}.partial`;
  const fd = createPartial(partial);
  const pack = tar.pack();
  const out = fs.createWriteStream(partial, { fd });
  // level 1: a backup runs beside the live service on the same cores; WAL and table files still shrink several-fold
  const written = pipeline(pack, zlib.createGzip({ level: 1 }), out);
  written.catch(() => {}); // awaited in close()/abort()
  let bytes = 0;

  type Fill = (sink: NodeJS.WritableStream) => Promise<void>;
  const entry = async (header: Partial<tar.Header> & { name: string }, fill: Fill) => {
    const done = new Promise<void>((resolve, reject) => {
      // streamx's Writable, used as Node's (write, 'drain', end)
      const sink = pack.entry(header, (err) => (err ? reject(err) : resolve())) as unknown as NodeJS.WritableStream;
      fill(sink).then(() => sink.end(), reject);
    });
    await done;
  };
  return {
    get bytes() {
      return bytes;
    },
    async addFile(name, file, size, mode) {
      await entry({ name, size, mode, type: 'file', mtime: new Date() }, async (sink) => {
        const handle = await fs.promises.open(file, 'r');
        try {
          for (let at = 0; at < size;) {
            const buffer = Buffer.alloc(Math.min(CHUNK, size - at));
            const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
            // a file that shrank meanwhile (a truncated table) is padded: WAL replay rewrites what changed
            if (!sink.write(bytesRead ? buffer.subarray(0, bytesRead) : buffer)) await once(sink, 'drain');
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
      await entry({ name, size: data.length, mode, type: 'file', mtime: new Date() }, async (sink) => {
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

/** Where an entry goes under `root`, or null when its name is unsafe or not ours (absolute, `..`, unknown). */
export function entryPath(root: string, name: string): string | null {
  const clean = path.posix.normalize(name.replace(/\/+$/, ''));
  if (!clean || clean === '.' || path.posix.isAbsolute(clean) || clean.split('/').includes('..')) return null;
  if (clean.includes('\0') || !RESTORABLE.has(clean.split('/')[0])) return null;
  const target = path.resolve(root, ...clean.split('/'));
  return target.startsWith(path.resolve(root) + path.sep) ? target : null;
}

/**
 * Unpacks an archive written by writeArchive into `root`: directories and regular files only, each at a checked path
 * (entryPath), with its mode. Answers the names unpacked. An entry of another kind or an unsafe name fails it.
 */
export async function readArchive(file: string, root: string): Promise<string[]> {
  const extract = tar.extract();
  const names: string[] = [];
  const feeding = pipeline(fs.createReadStream(file), zlib.createGunzip(), extract);
  feeding.catch(() => {}); // its error ends the loop below too
  for await (const entry of extract) {
    const { name, type, mode } = entry.header;
    const target = entryPath(root, name);
    if (!target || (type !== 'file' && type !== 'directory'))
      throw new Error(`The backup holds an entry a restore does not write: ${name} (${type})`);
    if (type === 'directory') {
      await fs.promises.mkdir(target, { recursive: true, mode: mode & 0o777 });
      entry.resume();
    } else {
      await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await pipeline(entry, fs.createWriteStream(target, { mode: mode & 0o777, flags: 'wx' }));
    }
    await fs.promises.chmod(target, mode & 0o777);
    names.push(name);
  }
  await feeding;
  return names;
}
