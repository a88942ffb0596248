import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { restoreBackup, takeBackup } from '../src/db/backup.js';

/**
 * The CLI's backup commands (docs/operations.md, "Backups"). They run without the application's context: no
 * migration, no job store; only the embedded database under DATA_DIR and its files.
 */
export const BACKUP_HELP = [
  "  backup FILE                      back up the embedded database and DATA_DIR's files while the service runs",
  '  restore FILE [--unverified]      restore a backup into DATA_DIR, which must be empty or missing',
  '  backup:check FILE [--unverified] verify a backup, restore it into a temporary directory, count its rows',
  '                                   (--unverified: accept a backup made before backups carried a manifest)',
].join('\n');

const DATABASE_URL_SET =
  'DATABASE_URL is set: that database is backed up with its own tools, e.g. ' +
  'pg_dump -Fc "$DATABASE_URL" > leadflow.dump (restore: pg_restore --no-owner -d "$DATABASE_URL" leadflow.dump), ' +
  'your provider\'s snapshots, and a copy of DATA_DIR\'s uploads/ and exports/ (docs/operations.md, "Backups").';

/** DATA_DIR, read without writing the development session secret into it (a restore needs it empty). */
function embeddedDataDir(): string {
  const config = loadConfig({ ...process.env, SESSION_SECRET: process.env.SESSION_SECRET ?? 'x'.repeat(32) });
  if (config.databaseUrl) throw new ConfigError(DATABASE_URL_SET);
  return config.dataDir;
}

function fileArgument(args: string[], command: string): string {
  if (!args[0]) throw new ConfigError(`Usage: npm run cli -- ${command} FILE`);
  return args[0];
}

type Flags = { unverified?: unknown };

export const backupCommands: Record<string, (args: string[], flags: Flags) => Promise<object>> = {
  async backup(args) {
    return takeBackup(embeddedDataDir(), fileArgument(args, 'backup'));
  },
  async restore(args, flags) {
    const file = fileArgument(args, 'restore');
    return restoreBackup(file, embeddedDataDir(), { unverified: !!flags.unverified });
  },
  async 'backup:check'(args, flags) {
    const file = fileArgument(args, 'backup:check');
    embeddedDataDir();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leadflow-check-'));
    fs.chmodSync(scratch, 0o711); // as root, the embedded server runs as `postgres`, which must enter it
    try {
      const restored = await restoreBackup(file, path.join(scratch, 'data'), { unverified: !!flags.unverified });
      return { ok: true, ...restored, restored: undefined };
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  },
};
