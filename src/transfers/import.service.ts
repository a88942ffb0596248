import fs from 'node:fs';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import type { LeadService } from '../leads/lead.service.js';
import { accountScope, authorize } from '../policy.js';
import { findInScope } from '../query.js';
import type { ImportRun } from './import-run.model.js';
import { runImport } from './import-run.js';
import { csvRowsFromSample } from './import-total.js';
import { importProgress } from './import-progress.js';
import { expansionLimits, keepUpload, uploadAccount, withKeptUpload, type UploadedFile } from '../uploads.js';

export const IMPORT_JOB = 'import-leads';

/** Refused rows in file order; the import page shows this many of them (the CSV report has them all). */
const ERROR_ORDER: [string, string][] = [
  ['row_number', 'ASC'],
  ['id', 'ASC'],
];
export const REPORT_ROWS = 100;

export function importRunView(r: ImportRun) {
  return {
    id: r.id,
    account_id: r.account_id,
    status: r.status,
    file_name: r.file_name,
    file_type: r.file_type,
    rows_read: r.rows_read,
    rows_written: r.rows_written,
    rows_failed: r.rows_failed,
    // rows_total (the rows done when they passed it), rows_total_estimated, rows_done, percent
    ...importProgress(r),
    error: r.error,
    created_at: r.created_at.toISOString(),
    started_at: r.started_at?.toISOString() ?? null,
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

const totalColumns = (t: { total: number; estimated: boolean } | null) =>
  t && { rows_total: t.total, rows_total_estimated: t.estimated };

/**
 * Checks the upload (type by content, size), keeps it under DATA_DIR/uploads and queues the import (IMPORTANT).
 * The temporary upload is removed whatever happens, a refusal included.
 */
async function start(core: Core, actor: Actor, file: UploadedFile, options: unknown = {}) {
  try {
    authorize(actor, 'import', 'lead');
    const accountId = await uploadAccount(core, actor, options);
    const { stored, type, head } = await keepUpload(core, accountId, file);
    // the run and its job commit together: no run is left queued without a job by a crash in between
    const run = await withKeptUpload(stored, () =>
      core.db.sequelize.transaction(async (transaction) => {
        const created = await core.models.ImportRun.create(
          {
            account_id: accountId,
            user_id: actor.kind === 'system' ? null : actor.userId,
            file_name: file.originalname.slice(0, 255),
            file_path: stored,
            file_type: type,
            // a CSV's total at once, estimated from its size unless the sample was all of it; counted as the job starts
            ...(type === 'csv' && totalColumns(csvRowsFromSample(head, file.size))),
          },
          { transaction },
        );
        await core.queue.enqueueIn(transaction, IMPORT_JOB, [{ runId: created.id, accountId: created.account_id }], {
          priority: 'IMPORTANT',
        });
        return created;
      }),
    );
    return importRunView(run);
  } finally {
    await fs.promises.rm(file.path, { force: true });
  }
}

export function createImportService(core: Core, deps: { leads: LeadService }) {
  const { ImportRun, ImportRunError } = core.models;

  return {
    /** The role check of `start`, made by the route before it reads a byte of the upload. */
    authorizeStart(actor: Actor) {
      authorize(actor, 'import', 'lead');
    },
    start: (actor: Actor, file: UploadedFile, options?: unknown) => start(core, actor, file, options),
    async list(actor: Actor) {
      authorize(actor, 'viewAny', 'importRun');
      return (
        await ImportRun.findAll({
          where: accountScope(actor),
          order: [
            ['created_at', 'DESC'],
            ['id', 'DESC'],
          ],
          limit: 100,
        })
      ).map(importRunView);
    },

    async show(actor: Actor, id: number) {
      authorize(actor, 'view', 'importRun');
      return findInScope(ImportRun, actor, { id });
    },

    /** The bad rows of a run, ordered, for the downloadable report. */
    async errors(actor: Actor, id: number) {
      authorize(actor, 'view', 'importRun');
      const run = await findInScope(ImportRun, actor, { id });
      return ImportRunError.findAll({ where: { import_run_id: run.id }, order: ERROR_ORDER });
    },

    /**
     * A run's state (importRunView) and, once it has ended, its first `limit` refused rows (line, column, message):
     * what the panel's import page shows after the upload (the whole list is the CSV of GET /imports/{id}/report).
     */
    async report(actor: Actor, id: number, limit = REPORT_ROWS) {
      authorize(actor, 'view', 'importRun');
      const run = await findInScope(ImportRun, actor, { id });
      const ended = run.status === 'completed' || run.status === 'failed';
      const rows = ended
        ? await ImportRunError.findAll({ where: { import_run_id: run.id }, order: ERROR_ORDER, limit })
        : [];
      return {
        run: importRunView(run),
        refused: rows.map((e) => ({ row: e.row_number, column: e.column_name, message: e.message })),
      };
    },

    /** The job's work (import-run.ts). */
    /** The job; `handedBack` aborts when a stopping worker hands it back (it stops after its batches in flight). */
    run: (runId: number, handedBack?: AbortSignal) =>
      runImport(core, deps.leads, runId, expansionLimits(core.config), handedBack),
  };
}
export type ImportService = ReturnType<typeof createImportService>;
