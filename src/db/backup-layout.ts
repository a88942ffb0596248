/**
 * What a backup may hold, and the check of its manifest (docs/operations.md, "Backups": "What a restore accepts").
 * A backup is a data directory that will run as the database server: an archive that could make that server run a
 * command, load a library, follow a link or start in recovery is refused before anything is started on it.
 */

/** One entry as written or unpacked: a directory, or a file with its size and the SHA-256 of its bytes (hex). */
export interface ArchiveEntry {
  path: string;
  type: 'file' | 'directory';
  size: number;
  sha256?: string;
}

/** Top-level files of `pg/` a backup made by `backup` holds (the four configuration files are rewritten on restore). */
const PG_FILES = new Set([
  'PG_VERSION',
  'backup_label',
  'postgresql.conf',
  'postgresql.auto.conf',
  'pg_hba.conf',
  'pg_ident.conf',
]);
/** Top-level directories of a PostgreSQL 18 data directory (base-backup.ts copies them, some emptied). */
const PG_DIRS = new Set([
  'base',
  'global',
  'pg_commit_ts',
  'pg_dynshmem',
  'pg_logical',
  'pg_multixact',
  'pg_notify',
  'pg_replslot',
  'pg_serial',
  'pg_snapshots',
  'pg_stat',
  'pg_stat_tmp',
  'pg_subtrans',
  'pg_tblspc',
  'pg_twophase',
  'pg_wal',
  'pg_xact',
]);
/** Top-level files of DATA_DIR beside the directories pg/, uploads/, exports/ and outbox/. */
const DATA_FILES = new Set(['pg-credentials.json', 'session-secret', 'leadflow-backup.json']);
/** A name inside pg/: what PostgreSQL names its files (relation numbers, WAL segments, pg_filenode.map…). */
const PG_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Why the entry `name` (cleaned: relative, no `..`, first part known) of kind `type` is refused, or null when it
 * belongs to the layout a backup has.
 */
export function refusedEntry(name: string, type: string): string | null {
  const parts = name.split('/');
  if (parts.length === 1)
    return (parts[0] === 'pg' || !DATA_FILES.has(parts[0])) === (type === 'directory')
      ? null
      : `a ${type} where a backup has ${type === 'file' ? 'a directory' : 'a file'}`;
  if (parts[0] !== 'pg') return null; // uploads/, exports/, outbox/: data files, never read as code or configuration
  const [, top] = parts;
  if (top === 'recovery.signal' || top === 'standby.signal')
    return 'a restore never starts a backup in recovery or as a standby (a restore_command would run)';
  if (top === 'tablespace_map' || (top === 'pg_tblspc' && parts.length > 2))
    return 'a tablespace link: a backup of the embedded database has no tablespaces';
  if (!parts.slice(1).every((p) => PG_NAME.test(p))) return 'a name PostgreSQL does not give its files';
  if (parts.length > 2) return PG_DIRS.has(top) ? null : 'not part of a PostgreSQL data directory';
  if (type === 'file' && PG_FILES.has(top)) return null;
  if (type === 'directory' && PG_DIRS.has(top)) return null;
  return 'not part of a PostgreSQL data directory as `backup` copies it';
}

/**
 * The differences between the manifest's entries and those unpacked (the manifest file itself aside), one per entry:
 * `changed: pg/base/…`, `missing: …`, `added: …`; empty when they match.
 */
export function manifestDifferences(listed: ArchiveEntry[], found: Map<string, ArchiveEntry>, own: string): string[] {
  const differences: string[] = [];
  const seen = new Set<string>();
  for (const want of listed) {
    seen.add(want.path);
    const got = found.get(want.path);
    if (!got) differences.push(`missing: ${want.path}`);
    else if (got.type !== want.type || got.size !== want.size || got.sha256 !== want.sha256)
      differences.push(`changed: ${want.path}`);
  }
  for (const name of found.keys()) if (name !== own && !seen.has(name)) differences.push(`added: ${name}`);
  return differences;
}
