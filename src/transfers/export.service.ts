import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';
import { Op } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { isDatabaseUnavailable } from '../db/index.js';
import { GoneError, NotFoundError } from '../errors.js';
import { dashboardListQuerySchema, type LeadFilters } from '../leads/lead.schemas.js';
import { leadExport } from '../leads/lead-export.repository.js';
import { accountScope, authorize } from '../policy.js';
import { emptyPrivateFile, privateDir } from '../private-files.js';
import { findInScope } from '../query.js';
import { validate } from '../validation.js';
import type { ExportRun } from './export-run.model.js';
import { csvInHalves, xlsxFile } from './export-streams.js';
import { runActor } from '../accounts/run-actor.js';

export const EXPORT_JOB = 'export-leads';
export const CLEANUP_JOB = 'cleanup-exports';

/** The list's own filters (paging aside) plus the format. */
const exportSchema = dashboardListQuerySchema
  .fork(['page', 'perPage'], (s) => s.strip())
  .keys({ file_extension: Joi.string().valid('xlsx', 'csv').required() });

export function exportRunView(r: ExportRun) {
  return {
    id: r.id,
    account_id: r.account_id,
    status: r.status,
    file_extension: r.file_extension,
    filters: r.filters,
    rows_written: r.rows_written,
    error: r.error,
    expires_at: r.expires_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

/**
 * The job: the list's own filter SQL, formatted by one SELECT and streamed out of PostgreSQL with COPY (one
 * snapshot, nothing held in memory): as CSV straight into the file (csvInHalves), in COPY's text format through
 * copyTextRows into exceljs's streaming writer for xlsx. rows_written is updated every two seconds while it runs.
 */
async function runExport(core: Core, runId: number, handedBack?: AbortSignal): Promise<void> {
  const { ExportRun, User } = core.models;
  const { sequelize } = core.db;
  const run = await ExportRun.findByPk(runId);
  if (!run || run.status === 'completed' || run.status === 'expired') return;
  const actor = await runActor(run, User, 'export');
  if (!actor) return;
  const dir = path.join(core.config.dataDir, 'exports', String(run.account_id));
  await privateDir(dir);
  const file = path.join(dir, `${run.id}.${run.file_extension}`);
  await run.update({ status: 'running', started_at: new Date(), file_path: file });
  const progress = { rows: 0 };
  const timer = setInterval(() => {
    ExportRun.update({ rows_written: progress.rows }, { where: { id: run.id, status: 'running' } }).catch(() => {});
  }, 2000);
  try {
    // The writers open the file by name and keep the mode of the file they find: 0600 (src/private-files.ts).
    await emptyPrivateFile(file);
    // The list's own scope: a seller's export is their account whatever the filters say; an admin's is the account
    // chosen in the filters (or every account), like the admin's list.
    const query = leadExport(actor, run.filters as LeadFilters);
    const write = run.file_extension === 'csv' ? csvInHalves : xlsxFile;
    const count = await write(sequelize, query, file, progress);
    await run.update({
      status: 'completed',
      rows_written: count,
      finished_at: new Date(),
      expires_at: new Date(Date.now() + core.config.exportTtlDays * 86_400_000),
    });
    core.metrics.transferRows.inc({ kind: 'export', outcome: 'exported' }, count ?? 0);
  } catch (err) {
    await fs.promises.rm(file, { force: true }).catch(() => {});
    // Handed back by a stopping worker (its pools then close under it): not a failure, another worker writes it again.
    if (handedBack?.aborted) return core.logger.info({ runId }, 'export handed back at shutdown; it runs again');
    // An outage is not the export's fault: the job waits for the database and writes the file again.
    if (isDatabaseUnavailable(err)) throw err;
    core.logger.error({ err, runId }, 'export failed');
    await run.update({ status: 'failed', error: (err as Error).message.slice(0, 1000), finished_at: new Date() });
  } finally {
    clearInterval(timer);
  }
}

/** One export of the actor's account (another account's is not found, as for the download), as the list shows it. */
async function showExport(core: Core, actor: Actor, id: number) {
  authorize(actor, 'view', 'exportRun');
  return exportRunView(await findInScope(core.models.ExportRun, actor, { id }));
}

/** Queues an export (IMPORTANT) of the leads the list would show with these filters. */
async function start(core: Core, actor: Actor, input: Record<string, unknown>) {
  authorize(actor, 'export', 'lead');
  const { file_extension, ...filters } = input ?? {};
  const v = validate<Record<string, unknown> & { file_extension: 'xlsx' | 'csv' }>(exportSchema, {
    file_extension,
    ...filters,
  });
  const { file_extension: ext, ...clean } = v;
  // the run and its job commit together: no run is left queued without a job by a crash in between
  const run = await core.db.sequelize.transaction(async (transaction) => {
    const created = await core.models.ExportRun.create(
      {
        account_id: actor.accountId,
        user_id: actor.kind === 'system' ? null : actor.userId,
        file_extension: ext,
        filters: clean,
      },
      { transaction },
    );
    await core.queue.enqueueIn(transaction, EXPORT_JOB, [{ runId: created.id, accountId: created.account_id }], {
      priority: 'IMPORTANT',
    });
    return created;
  });
  return exportRunView(run);
}

export function createExportService(core: Core) {
  const { ExportRun } = core.models;
  return {
    /** Queues an export (IMPORTANT) of the leads the list would show with these filters. */
    start: (actor: Actor, input: Record<string, unknown>) => start(core, actor, input),

    async list(actor: Actor) {
      authorize(actor, 'viewAny', 'exportRun');
      return (
        await ExportRun.findAll({
          where: accountScope(actor),
          order: [
            ['created_at', 'DESC'],
            ['id', 'DESC'],
          ],
          limit: 100,
        })
      ).map(exportRunView);
    },

    show: (actor: Actor, id: number) => showExport(core, actor, id),

    /** The file of a finished export of the actor's account; an expired one is gone. */
    async file(actor: Actor, id: number): Promise<{ path: string; name: string }> {
      authorize(actor, 'view', 'exportRun');
      const run = await findInScope(ExportRun, actor, { id });
      if (run.status !== 'completed' && run.status !== 'expired') throw new NotFoundError();
      if (
        run.status === 'expired' ||
        (run.expires_at && run.expires_at <= new Date()) ||
        !run.file_path ||
        !fs.existsSync(run.file_path)
      )
        throw new GoneError('This export has expired.');
      return { path: run.file_path, name: `leads-${run.id}.${run.file_extension}` };
    },

    run: (runId: number, handedBack?: AbortSignal) => runExport(core, runId, handedBack),

    /** Deletes the files of exports past their expiry (daily job). */
    async removeExpired(): Promise<number> {
      const expired = await ExportRun.findAll({ where: { status: 'completed', expires_at: { [Op.lte]: new Date() } } });
      for (const r of expired) {
        if (r.file_path) await fs.promises.rm(r.file_path, { force: true });
        await r.update({ status: 'expired' });
      }
      return expired.length;
    },
  };
}
export type ExportService = ReturnType<typeof createExportService>;
