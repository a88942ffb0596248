import fs from 'node:fs';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { isDatabaseUnavailable } from '../db/index.js';
import { checkLeadItems, type Catalogue, type PreparedLead } from '../leads/lead.check.js';
import type { LeadService } from '../leads/lead.service.js';
import type { ImportRun } from './import-run.model.js';
import { columnOf, readHeader, toItem, type ImportHeader } from './import-rows.js';
import { insertBadRows, moveCursor, type BadRow } from './import.repository.js';
import { runActor } from './run-actor.js';
import { inflatedSizeProblem, readRowChunks, type ExpansionLimits } from './spreadsheet.js';

/**
 * Rows per write transaction, fewer when rows are wide (cells over BATCH_CHARS characters in all). The first batches
 * are smaller (FIRST_BATCH, then twice as many each time) so the database starts writing while the rest is read.
 */
const BATCH = 5000;
const FIRST_BATCH = 1000;
const BATCH_CHARS = 8_000_000;
/** Rows validated between two turns of the event loop. */
const CHECK = 200;

/** Another attempt of the same run (a job run twice) has moved the cursor past this attempt's batch. */
class AnotherAttempt extends Error {}

/** A batch being written: its commit, and its phones for the next batch's duplicate check. */
interface InFlight {
  done: Promise<void>;
  phones: string[];
}

/** Rows validated and waiting to be written, from file row `first` to `last`. */
interface Checked {
  first: number;
  last: number;
  chars: number;
  good: { p: PreparedLead; row: number }[];
  bad: BadRow[];
}
const noneChecked = (): Checked => ({ first: 0, last: 0, chars: 0, good: [], bad: [] });

/** Everything one attempt of an import knows while it reads the file: the steps below read and move it. */
interface ImportState {
  core: Core;
  leads: LeadService;
  run: ImportRun;
  actor: Actor;
  catalogue: Catalogue;
  limits: ExpansionLimits;
  header: ImportHeader | null;
  /** The cursor when this attempt started: rows up to it are committed and skipped. */
  resumeAfter: number;
  /** The file row just read (row 1 is the header). */
  rowNo: number;
  /** Rows read and not yet validated. */
  unchecked: { row: number; item: Record<string, unknown> }[];
  checked: Checked;
  /** The newest batch being written; the one before it is `older`: at most two write transactions run at once. */
  newest: InFlight | null;
  older: Promise<void>;
  /** Where the cursor stands once the batches queued so far are committed (row 1, the header, is never counted). */
  queuedTo: number;
  /** Batches queued so far. */
  batches: number;
}

/** Fails the run; the upload goes once the failure is recorded (a run the database cut short runs again from it). */
async function fail(state: ImportState, error: string) {
  await state.core.models.ImportRun.update(
    { status: 'failed', error, finished_at: new Date() },
    { where: { id: state.run.id, status: 'running' } },
  );
  await fs.promises.rm(state.run.file_path, { force: true });
}

/**
 * Validates the rows read so far like REST leads, in a small chunk, then yields to the event loop so the database
 * replies of the batch being written are handled at once.
 */
async function validateChunk(state: ImportState) {
  if (!state.unchecked.length) return;
  const rows = state.unchecked;
  state.unchecked = [];
  const { prepared, errors } = checkLeadItems(
    rows.map((r) => r.item),
    'rows',
    state.catalogue,
  );
  prepared.forEach((p, i) => p && state.checked.good.push({ p, row: rows[i].row }));
  for (const [field, msgs] of Object.entries(errors)) {
    const row = rows[Number(field.split('.')[1])].row;
    const column = columnOf(field);
    for (const m of msgs)
      state.checked.bad.push({ row, column, message: m.replace(/rows\.\d+\.(products\.\d+\.)?/g, '').slice(0, 500) });
  }
  state.checked.first ||= rows[0].row;
  state.checked.last = rows[rows.length - 1].row;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * One batch in one transaction: its leads, its bad rows and the run's cursor and counters. Two batches are written
 * at once, but a batch moves the cursor (and commits) only after the one before it has committed, and only if the
 * cursor stands right before its first row; so what is committed is always the file up to the cursor, and each row is
 * written once. A cursor elsewhere means another attempt of this run wrote these rows.
 */
async function writeBatch(state: ImportState, b: Checked & { from: number }, previous: InFlight | null) {
  const { sequelize } = state.core.db;
  const { run } = state;
  const failed = new Set(b.bad.map((e) => e.row)).size;
  const imported = await sequelize.transaction(async (transaction) => {
    const written = await state.leads.insertLeads(
      state.actor,
      b.good.map((g) => g.p),
      {
        transaction,
        accountId: run.account_id,
        importRunId: run.id,
        importRows: b.good.map((g) => g.row),
        seenPhones: previous?.phones,
      },
    );
    await insertBadRows(sequelize, transaction, run, b.bad);
    await previous?.done;
    const cursor = { from: b.from, to: b.last, read: b.last - Math.max(b.from, 1), written: written.length, failed };
    if (!(await moveCursor(sequelize, transaction, run.id, cursor))) throw new AnotherAttempt();
    return written.length;
  });
  // counted once committed: a batch rolled back (and written again by a retry) is not counted twice
  state.core.metrics.transferRows.inc({ kind: 'import', outcome: 'imported' }, imported);
  state.core.metrics.transferRows.inc({ kind: 'import', outcome: 'refused' }, failed);
}

/** Validates what is left and queues the checked rows as a batch, behind the write before the newest. */
async function queueBatch(state: ImportState) {
  await validateChunk(state);
  if (!state.checked.last) return;
  const full = state.checked;
  state.checked = noneChecked();
  await state.older;
  const previous = state.newest;
  const done = writeBatch(state, { ...full, from: state.queuedTo }, previous);
  done.catch(() => {}); // awaited by the next batch or at the end
  state.queuedTo = full.last;
  state.batches++;
  state.older = previous?.done ?? Promise.resolve();
  state.newest = { done, phones: full.good.map((g) => g.p.phone_normalized) };
}

/** Writes what is left and waits for the last commit (which waits for every earlier one). */
async function drain(state: ImportState) {
  await queueBatch(state);
  await state.newest?.done;
}

/** What a row asks for once read: nothing more, a chunk to validate, a batch to write, or the end of the run. */
type AfterRow = 'next' | 'validate' | 'queue' | 'too many rows' | { missing: string };

const batchFull = (state: ImportState) =>
  state.checked.last - state.checked.first + 1 >= Math.min(BATCH, FIRST_BATCH * 2 ** state.batches) ||
  state.checked.chars >= BATCH_CHARS;

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
  for await (const chunk of readRowChunks(run.file_path, run.file_type)) {
    for (const cells of chunk) {
      const step = readRow(state, cells);
      if (step !== 'next' && !(await afterRow(state, step))) return;
    }
  }
  if (!state.header) return fail(state, 'The file is empty.');
  await drain(state);
  await run.reload();
  await state.core.models.ImportRun.update(
    { status: 'completed', rows_total: run.rows_read, finished_at: new Date() },
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
export async function runImport(core: Core, leads: LeadService, runId: number, limits: ExpansionLimits) {
  const attempt = await startAttempt(core, runId);
  if (!attempt) return;
  const catalogue = await leads.activeProducts(attempt.run.account_id);
  const state: ImportState = {
    core,
    leads,
    catalogue,
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
    if (isDatabaseUnavailable(err)) throw err;
    core.logger.error({ err, runId }, 'import failed');
    await fail(state, `The file could not be read: ${(err as Error).message}`.slice(0, 1000));
  }
}
