import fs from 'node:fs';
import type { Core } from '../context.js';
import { isDatabaseUnavailable } from '../db/index.js';
import { analyzeAfterImport } from '../db/table-statistics.js';
import type { LeadService } from '../leads/lead.service.js';
import { readHeader, toItem } from './import-rows.js';
import { runActor } from '../accounts/run-actor.js';
import { recordTotal } from './import-total.js';
import { phoneCountryOf } from '../accounts/phone-country.js';
import { inflatedSizeProblem, readRowChunks, type ExpansionLimits } from '../spreadsheet.js';
import {
  AnotherAttempt,
  CHECK,
  batchFull,
  drain,
  noneChecked,
  queueBatch,
  validateChunk,
  type ImportState,
} from './import-batches.js';

/** Thrown between rows when the job was handed back at shutdown; another worker resumes from the cursor. */
class HandedBack extends Error {}

/** Fails the run; the upload goes once the failure is recorded (a run the database cut short runs again from it). */
async function fail(state: ImportState, error: string) {
  await state.core.models.ImportRun.update(
    { status: 'failed', error, finished_at: new Date() },
    { where: { id: state.run.id, status: 'running' } },
  );
  await fs.promises.rm(state.run.file_path, { force: true });
}

/** What a row asks for once read: nothing more, a chunk to validate, a batch to write, or the end of the run. */
type AfterRow = 'next' | 'validate' | 'queue' | 'too many rows' | { missing: string };

/**
 * One row of the file: the header, or a data row after the cursor, read into the next chunk. Synchronous, so the
 * common row costs no promise of its own; what needs the database is left to `afterRow`.
 */
function readRow(state: ImportState, cells: string[]): AfterRow {
  state.rowNo++;
  if (!state.header) {
    const header = readHeader(cells);
    if ('missing' in header) return header;
    state.header = header;
    return 'next';
  }
  if (state.rowNo - 1 > state.core.config.importMaxRows) return 'too many rows';
  if (state.rowNo <= state.resumeAfter) return 'next';
  state.unchecked.push({ row: state.rowNo, item: toItem(state.header, cells, state.catalogue) });
  for (const c of cells) state.checked.chars += c.length;
  if (state.unchecked.length >= CHECK) return 'validate';
  return batchFull(state) ? 'queue' : 'next';
}

/** Does what a row asked for; answers false when the run has stopped (a missing column, too many rows). */
async function afterRow(state: ImportState, step: Exclude<AfterRow, 'next'>): Promise<boolean> {
  if (typeof step === 'object') return fail(state, step.missing).then(() => false);
  if (step === 'too many rows') {
    await drain(state);
    const max = state.core.config.importMaxRows;
    await fail(state, `The file has more than ${max} rows; the first ${max} were imported.`);
    return false;
  }
  if (step === 'validate') await validateChunk(state);
  if (batchFull(state)) await queueBatch(state);
  return true;
}

/** Reads the whole file, writes its last batch and completes the run. */
async function readFile(state: ImportState) {
  const { run } = state;
  const inflated = run.file_type === 'xlsx' ? await inflatedSizeProblem(run.file_path, state.limits) : null;
  if (inflated) return fail(state, inflated);
  await recordTotal(state.core.models.ImportRun, run, state.core.config.importMaxRows);
  for await (const chunk of readRowChunks(run.file_path, run.file_type)) {
    if (state.handedBack?.aborted) throw new HandedBack();
    for (const cells of chunk) {
      const step = readRow(state, cells);
      if (step !== 'next' && !(await afterRow(state, step))) return;
    }
  }
  if (!state.header) return fail(state, 'The file is empty.');
  await drain(state);
  await run.reload();
  // the lists of the account are planned with statistics that know these rows as soon as the run says completed
  await analyzeAfterImport(state.core, run.rows_written);
  await state.core.models.ImportRun.update(
    { status: 'completed', rows_total: run.rows_read, rows_total_estimated: false, finished_at: new Date() },
    { where: { id: run.id, status: 'running' } },
  );
  await fs.promises.rm(run.file_path, { force: true });
}

/** The run as this attempt may take it: queued or running (moved to running), with the user who started it. */
async function startAttempt(core: Core, runId: number) {
  const { ImportRun, User } = core.models;
  const run = await ImportRun.findByPk(runId);
  if (!run || run.status === 'completed' || run.status === 'failed') return null;
  const actor = await runActor(run, User, 'import');
  if (!actor) return null;
  const [started] = await ImportRun.update(
    { status: 'running', started_at: run.started_at ?? new Date() },
    { where: { id: run.id, status: ['queued', 'running'] } },
  );
  return started ? { run, actor } : null;
}

/**
 * The job: streams the file, validates rows like REST leads and writes them in batches (two at once, committed in
 * file order with the run's cursor, counters and bad rows) while the next batch is read. A re-run after a crash
 * starts after the cursor. Status changes apply only to a run still queued or running, so an attempt that
 * overlapped another one (a job run twice) cannot undo its result.
 */
export async function runImport(
  core: Core,
  leads: LeadService,
  runId: number,
  limits: ExpansionLimits,
  handedBack?: AbortSignal,
) {
  const attempt = await startAttempt(core, runId);
  if (!attempt) return;
  const catalogue = await leads.activeProducts(attempt.run.account_id);
  const country = await phoneCountryOf(core, attempt.run.account_id);
  const state: ImportState = {
    core,
    leads,
    catalogue,
    country,
    limits,
    run: attempt.run,
    actor: attempt.actor,
    header: null,
    resumeAfter: attempt.run.cursor_row,
    rowNo: 0,
    unchecked: [],
    checked: noneChecked(),
    newest: null,
    older: Promise.resolve(),
    queuedTo: attempt.run.cursor_row,
    batches: 0,
    handedBack,
  };
  try {
    await readFile(state);
  } catch (err) {
    await Promise.allSettled([state.older, state.newest?.done]);
    // Sequelize wraps pg's error (`original`); statements sent with plain pg (src/query.ts select) throw it as is
    const failure = err as { constraint?: string; original?: { constraint?: string } };
    const constraint = (failure.original ?? failure).constraint;
    if (err instanceof AnotherAttempt || constraint === 'leads_import_row_key') {
      core.logger.warn({ runId }, 'another attempt of this import wrote its rows; this one stops');
      return;
    }
    // An outage is not the file's fault: the job waits for the database and resumes from the cursor, upload kept.
    // Handed back by a stopping worker (or its pools closed under it then): not a failure; the file and the cursor
    // stay, and the worker that takes the job next resumes after the last committed batch.
    if (err instanceof HandedBack || handedBack?.aborted)
      return core.logger.info({ runId, cursor_row: state.queuedTo }, 'import handed back at shutdown; resumes later');
    if (isDatabaseUnavailable(err)) throw err;
    core.logger.error({ err, runId }, 'import failed');
    await fail(state, `The file could not be read: ${(err as Error).message}`.slice(0, 1000));
  }
}
