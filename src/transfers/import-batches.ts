import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { checkLeadItems, type Catalogue, type PreparedLead } from '../leads/lead.check.js';
import type { LeadService } from '../leads/lead.service.js';
import type { ImportRun } from './import-run.model.js';
import { columnOf, type ImportHeader } from './import-rows.js';
import { insertBadRows, moveCursor, type BadRow } from '../import-runs.js';
import type { ExpansionLimits } from '../spreadsheet.js';

/*
 * The write side of an import attempt: rows read by import-run.ts are validated in chunks and written in batches, two
 * at once, each committing the run's cursor in file order.
 */

/**
 * Rows per write transaction, fewer when rows are wide (cells over BATCH_CHARS characters in all). The first batches
 * are smaller (FIRST_BATCH, then twice as many each time) so the database starts writing while the rest is read.
 */
const BATCH = 5000;
const FIRST_BATCH = 1000;
const BATCH_CHARS = 8_000_000;
/** Rows validated between two turns of the event loop. */
export const CHECK = 200;

/** Another attempt of the same run (a job run twice) has moved the cursor past this attempt's batch. */
export class AnotherAttempt extends Error {}

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
export const noneChecked = (): Checked => ({ first: 0, last: 0, chars: 0, good: [], bad: [] });

/**
 * Everything one attempt of an import knows while it reads the file: the reading steps (import-run.ts) and the batch
 * steps here read and move it.
 */
export interface ImportState {
  core: Core;
  leads: LeadService;
  run: ImportRun;
  actor: Actor;
  catalogue: Catalogue;
  /** The account's phone_country: national numbers are read in it. */
  country: string;
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
  /** Aborted when a stopping worker hands the job back: reading stops, the batches in flight commit. */
  handedBack?: AbortSignal;
}

/**
 * Validates the rows read so far like REST leads, in a small chunk, then yields to the event loop so the database
 * replies of the batch being written are handled at once.
 */
export async function validateChunk(state: ImportState) {
  if (!state.unchecked.length) return;
  const rows = state.unchecked;
  state.unchecked = [];
  const { prepared, errors } = checkLeadItems(
    rows.map((r) => r.item),
    'rows',
    state.catalogue,
    state.country,
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
export async function queueBatch(state: ImportState) {
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
  // a phone without an E.164 form (uncallable) is never a duplicate
  const phones = full.good.flatMap((g) => (g.p.phone_normalized ? [g.p.phone_normalized] : []));
  state.newest = { done, phones };
}

/** Writes what is left and waits for the last commit (which waits for every earlier one). */
export async function drain(state: ImportState) {
  await queueBatch(state);
  await state.newest?.done;
}

/** The checked rows make a batch: its row count (growing from FIRST_BATCH) or its characters reached. */
export const batchFull = (state: ImportState) =>
  state.checked.last - state.checked.first + 1 >= Math.min(BATCH, FIRST_BATCH * 2 ** state.batches) ||
  state.checked.chars >= BATCH_CHARS;
