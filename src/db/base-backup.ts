import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { ArchiveWriter } from './backup-archive.js';

/**
 * A consistent copy of a running PostgreSQL's data directory, made as pg_basebackup makes one (the binaries package
 * ships no pg_basebackup or pg_dump): PostgreSQL's low-level backup API (`pg_backup_start` / `pg_backup_stop`, one
 * session) around a copy of the files, the `backup_label` it answers, and the WAL from the backup's start to its end,
 * kept from recycling meanwhile by a temporary replication slot. Files copied while they change are made consistent by
 * replaying that WAL when the copy first starts: everything committed before `pg_backup_stop` is in it.
 * Needs a superuser (the embedded server's bootstrap role).
 */

/** Not copied at all (the server makes them, or they belong to the running server only). */
const SKIPPED_FILES = new Set([
  'postmaster.pid',
  'postmaster.opts',
  'backup_label',
  'tablespace_map',
  'backup_manifest',
  'current_logfiles',
  'pg_internal.init',
]);
/** Copied as empty directories: their contents are runtime state (pg_wal's is added from the WAL range below). */
const EMPTIED_DIRS = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);

type Found = { rel: string; dir: boolean; size: number; mode: number };

/** Every file and directory under `root` the backup copies, parents first; files that vanish meanwhile are skipped. */
function walk(root: string, rel = ''): Found[] {
  const found: Found[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, rel));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return found;
    throw err;
  }
  for (const name of names.sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (SKIPPED_FILES.has(name) || name.startsWith('pgsql_tmp')) continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path.join(root, r));
    } catch {
      continue; // dropped while we looked
    }
    if (st.isDirectory()) {
      found.push({ rel: r, dir: true, size: 0, mode: st.mode & 0o777 });
      if (!(rel === '' && EMPTIED_DIRS.has(name))) found.push(...walk(root, r));
    } else if (st.isFile()) found.push({ rel: r, dir: false, size: st.size, mode: st.mode & 0o777 });
  }
  return found;
}

async function copy(archive: ArchiveWriter, pgDir: string, prefix: string, items: Found[]): Promise<number> {
  let files = 0;
  for (const f of items) {
    const name = `${prefix}/${f.rel}`;
    if (f.dir) await archive.addDirectory(name, f.mode);
    else {
      try {
        await archive.addFile(name, path.join(pgDir, f.rel), f.size, f.mode);
        files++;
      } catch (err) {
        // a relation dropped between the listing and the read: nothing of it is needed
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  return files;
}

/** The WAL segment files from `first` to `last` (same timeline), and the timeline history files. */
function walFiles(pgDir: string, first: string, last: string): Found[] {
  const dir = path.join(pgDir, 'pg_wal');
  return fs
    .readdirSync(dir)
    .filter((n) => (/^[0-9A-F]{24}$/.test(n) && n >= first && n <= last) || /^[0-9A-F]{8}\.history$/.test(n))
    .sort()
    .map((n) => {
      const st = fs.statSync(path.join(dir, n));
      return { rel: `pg_wal/${n}`, dir: false, size: st.size, mode: st.mode & 0o777 };
    });
}

export interface BaseBackup {
  startLsn: string;
  stopLsn: string;
  /** Taken just before pg_backup_stop: every transaction committed before this time is in the backup. */
  consistentAt: Date;
  files: number;
}

/** Copies the data directory `pgDir` of the server `client` is connected to (as a superuser) under `prefix`. */
export async function baseBackup(client: pg.Client, pgDir: string, archive: ArchiveWriter, prefix: string) {
  const slot = `leadflow_backup_${process.pid}`;
  // reserves the WAL from now on, for as long as this session lasts (temporary)
  await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [slot]);
  const label = `LeadFlow backup ${new Date().toISOString()}`;
  const started = await client.query<{ lsn: string }>('SELECT pg_backup_start($1, true)::text AS lsn', [label]);
  let stop: { lsn: string; labelfile: string; spcmapfile: string; last: string };
  let consistentAt: Date;
  let files: number;
  try {
    files = await copy(archive, pgDir, prefix, walk(pgDir));
    consistentAt = new Date();
    stop = (
      await client.query(
        `SELECT s.lsn::text AS lsn, s.labelfile, s.spcmapfile, pg_walfile_name(s.lsn) AS last
           FROM pg_backup_stop(false) s`,
      )
    ).rows[0];
  } catch (err) {
    await client.query('SELECT pg_backup_stop(false)').catch(() => {});
    throw err;
  }
  const first = /START WAL LOCATION: .*\(file ([0-9A-F]{24})\)/.exec(stop.labelfile)?.[1];
  if (!first) throw new Error('pg_backup_stop answered a backup label without its first WAL file');
  files += await copy(archive, pgDir, prefix, walFiles(pgDir, first, stop.last));
  await client.query('SELECT pg_drop_replication_slot($1)', [slot]);
  await archive.addText(`${prefix}/backup_label`, stop.labelfile);
  if (stop.spcmapfile) await archive.addText(`${prefix}/tablespace_map`, stop.spcmapfile);
  return { startLsn: started.rows[0].lsn, stopLsn: stop.lsn, consistentAt, files } satisfies BaseBackup;
}
