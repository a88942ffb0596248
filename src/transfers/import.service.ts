import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { isDatabaseUnavailable } from '../db/index.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { checkLeadItems, type Catalogue, type PreparedLead } from '../leads/lead.check.js';
import type { LeadService } from '../leads/lead.service.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId } from '../query.js';
import type { ImportRun } from './import-run.model.js';
import { runActor } from './run-actor.js';
import {
  readHead,
  readRows,
  sniffType,
  unescapeCell,
  inflatedSizeProblem,
  workbookExpansionProblem,
  type ExpansionLimits,
  type SheetType,
} from './spreadsheet.js';

export const IMPORT_JOB = 'import-leads';

interface InFlight {
  done: Promise<void>;
  phones: string[];
}

/** Another attempt of the same run (a job run twice) has moved the cursor past this attempt's batch. */
class AnotherAttempt extends Error {}
/**
 * Rows per write transaction, fewer when rows are wide (cells over BATCH_CHARS characters in all). The first batches
 * are smaller (FIRST_BATCH, then twice as many each time) so the database starts writing while the rest is read.
 */
const BATCH = 5000;
const FIRST_BATCH = 1000;
const BATCH_CHARS = 8_000_000;
/** Rows validated between two turns of the event loop. */
const CHECK = 200;
/** Columns the export writes that describe a lead's state rather than the lead to create; import ignores them. */
const IGNORED = new Set(['reference', 'status', 'total', 'created_at', 'updated_at', 'action_date', 'order_reference']);
const FIELDS = ['phone', 'sku', 'full_name', 'city', 'area', 'address', 'quantity', 'price', 'products', 'data'];

type Line = { sku: string; quantity: number; price: number };
/**
 * The export's `products` cell ("SKU-1 x2 @ 150; SKU-2 x1 @ 99.5") as product lines, or null unless the whole cell
 * reads back that way.
 */
export function parseProducts(cell: string): Line[] | null {
  const item = /(.+?) x(\d+) @ (\d+(?:\.\d+)?)(?:; |$)/y;
  const lines: Line[] = [];
  for (let m; item.lastIndex < cell.length && (m = item.exec(cell));)
    lines.push({ sku: m[1], quantity: Number(m[2]), price: Number(m[3]) });
  return lines.length && item.lastIndex === cell.length ? lines : null;
}

export function importRunView(r: ImportRun) {
  return {
    id: r.id,
    account_id: r.account_id,
    status: r.status,
    file_name: r.file_name,
    file_type: r.file_type,
    rows_total: r.rows_total,
    rows_read: r.rows_read,
    rows_written: r.rows_written,
    rows_failed: r.rows_failed,
    error: r.error,
    created_at: r.created_at.toISOString(),
    started_at: r.started_at?.toISOString() ?? null,
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

/** The file-row → field mapping of one data row (header matched case-insensitively). */
function toItem(header: Map<string, number>, extra: [string, number][], row: string[], catalogue: Catalogue) {
  const get = (k: string) => {
    const i = header.get(k);
    return i === undefined ? '' : unescapeCell(String(row[i] ?? '').trim());
  };
  const sku = get('sku');
  const phone = get('phone');
  let data: { key: string; value: string }[] = [];
  const rawData = get('data');
  if (rawData) {
    try {
      const parsed = JSON.parse(rawData);
      if (Array.isArray(parsed)) data = parsed;
    } catch {
      data.push({ key: 'data', value: rawData });
    }
  }
  for (const [key, i] of extra) {
    const value = unescapeCell(String(row[i] ?? '').trim());
    if (value) data.push({ key, value });
  }
  const first = {
    sku,
    quantity: get('quantity') === '' ? 1 : Number(get('quantity')),
    price: get('price') === '' ? (catalogue.get(sku)?.price ?? 1) : Number(get('price')),
  };
  // A lead exported with several products lists them all in `products` and repeats the first in sku/quantity/price;
  // the list is taken only while that first entry still matches (an edited sku, quantity or price wins alone).
  const listed = parseProducts(get('products'));
  const same =
    listed && listed[0].sku === first.sku && listed[0].quantity === first.quantity && listed[0].price === first.price;
  const item: Record<string, unknown> = {
    phone,
    full_name: get('full_name') || phone,
    products: same ? listed : [first],
  };
  for (const k of ['city', 'area', 'address']) if (get(k)) item[k] = get(k);
  if (data.length) item.data = data;
  return item;
}

/** The spreadsheet column an error path (`rows.3.products.0.sku`) points at. */
function columnOf(field: string): string {
  const f = field.replace(/^rows\.\d+\.?/, '');
  if (f.startsWith('products.0.')) return f.split('.').pop()!;
  if (f.startsWith('products')) return 'products';
  return f.split('.')[0] || 'row';
}

/** A workbook's limits follow the upload limit: a full-size real workbook expands far less than these. */
const expansionLimits = (config: Core['config']): ExpansionLimits => ({
  sharedStringsBytes: config.importMaxSharedStringsBytes,
  totalBytes: config.importMaxBytes * 50,
  ratio: 200,
});

export function createImportService(core: Core, deps: { leads: LeadService }) {
  const { ImportRun, ImportRunError, User } = core.models;
  const { sequelize } = core.db;
  const uploadDir = path.join(core.config.dataDir, 'uploads');

  return {
    /**
     * Checks the upload (type by content, size), keeps it under DATA_DIR/uploads and queues the import (IMPORTANT).
     * The temporary upload is removed whatever happens, a refusal included.
     */
    async start(actor: Actor, file: { path: string; originalname: string; size: number }) {
      try {
        authorize(actor, 'import', 'lead');
        const ext = path.extname(file.originalname).slice(1).toLowerCase();
        if (ext !== 'xlsx' && ext !== 'csv')
          throw ValidationError.single('file', 'The file must be a file of type: xlsx, csv.');
        if (file.size > core.config.importMaxBytes)
          throw ValidationError.single(
            'file',
            `The file must not be greater than ${Math.round(core.config.importMaxBytes / 1024)} kilobytes.`,
          );
        const type = sniffType(await readHead(file.path));
        if (type !== ext) throw ValidationError.single('file', `The file content is not a valid .${ext} spreadsheet.`);
        const bomb = type === 'xlsx' ? await workbookExpansionProblem(file.path, expansionLimits(core.config)) : null;
        if (bomb) throw ValidationError.single('file', bomb);
        const dir = path.join(uploadDir, String(actor.accountId));
        await fs.promises.mkdir(dir, { recursive: true });
        const stored = path.join(dir, `${crypto.randomUUID()}.${ext}`);
        await fs.promises.rename(file.path, stored).catch(async () => {
          await fs.promises.copyFile(file.path, stored);
        });
        const run = await ImportRun.create({
          account_id: actor.accountId,
          user_id: actor.kind === 'system' ? null : actor.userId,
          file_name: file.originalname.slice(0, 255),
          file_path: stored,
          file_type: type as SheetType,
        });
        await core.queue.enqueue(
          IMPORT_JOB,
          { runId: run.id },
          { priority: 'IMPORTANT', uniqueKey: `import:${run.id}` },
        );
        return importRunView(run);
      } finally {
        await fs.promises.rm(file.path, { force: true });
      }
    },

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
      const run = isRowId(Number(id)) ? await ImportRun.findOne({ where: { id, ...accountScope(actor) } }) : null;
      if (!run) throw new NotFoundError();
      return run;
    },

    /** The bad rows of a run, ordered, for the downloadable report. */
    async errors(actor: Actor, id: number) {
      const run = await this.show(actor, id);
      return ImportRunError.findAll({
        where: { import_run_id: run.id },
        order: [
          ['row_number', 'ASC'],
          ['id', 'ASC'],
        ],
      });
    },

    /**
     * The job: streams the file, validates rows like REST leads and writes them in batches (two at once, committed in
     * file order with the run's cursor, counters and bad rows) while the next batch is read. A re-run after a crash
     * starts after the cursor. Status changes apply only to a run still queued or running, so an attempt that
     * overlapped another one (a job run twice) cannot undo its result.
     */
    async run(runId: number): Promise<void> {
      const run = await ImportRun.findByPk(runId);
      if (!run || run.status === 'completed' || run.status === 'failed') return;
      const actor = await runActor(run, User, 'import');
      if (!actor) return;
      const [started] = await ImportRun.update(
        { status: 'running', started_at: run.started_at ?? new Date() },
        { where: { id: run.id, status: ['queued', 'running'] } },
      );
      if (!started) return;
      const catalogue = await deps.leads.activeProducts(run.account_id);
      // The upload goes once the failure is recorded (not before: a run the database cut short runs again from it).
      const fail = async (error: string) => {
        await ImportRun.update(
          { status: 'failed', error, finished_at: new Date() },
          { where: { id: run.id, status: 'running' } },
        );
        await fs.promises.rm(run.file_path, { force: true });
      };
      let header: Map<string, number> | null = null;
      let extra: [string, number][] = [];
      let rowNo = 0;
      let batch: { row: number; item: Record<string, unknown> }[] = [];
      /** The newest batch being written (its commit, and its phones for the next batch's duplicate check). */
      let newest = null as InFlight | null;
      /** The batch before it: at most two write transactions run at once. */
      let older: Promise<void> = Promise.resolve();
      /** Where the cursor stands once the batches queued so far are committed (row 1, the header, is never counted). */
      let queuedTo = run.cursor_row;
      /** Batches queued so far. */
      let batches = 0;

      /**
       * One batch in one transaction: its leads, its bad rows and the run's cursor and counters. Two batches are
       * written at once, but a batch moves the cursor (and commits) only after the one before it has committed, and
       * only if the cursor stands right before its first row; so what is committed is always the file up to the cursor,
       * and each row is written once. A cursor elsewhere means another attempt of this run wrote these rows.
       */
      const write = (
        b: {
          from: number;
          last: number;
          good: { p: PreparedLead; row: number }[];
          bad: { row: number; column: string; message: string }[];
        },
        previous: InFlight | null,
      ) =>
        sequelize
          .transaction(async (transaction) => {
            const written = await deps.leads.insertLeads(
              actor,
              b.good.map((g) => g.p),
              {
                transaction,
                accountId: run.account_id,
                importRunId: run.id,
                importRows: b.good.map((g) => g.row),
                seenPhones: previous?.phones,
              },
            );
            if (b.bad.length) {
              await sequelize.query(
                `INSERT INTO import_run_errors (account_id, import_run_id, row_number, column_name, message)
               SELECT $1, $2, * FROM unnest($3::int[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING`,
                {
                  bind: [
                    run.account_id,
                    run.id,
                    b.bad.map((e) => e.row),
                    b.bad.map((e) => e.column),
                    b.bad.map((e) => e.message),
                  ],
                  transaction,
                },
              );
            }
            await previous?.done;
            const moved = await sequelize.query(
              `UPDATE import_runs SET cursor_row = $2, rows_read = rows_read + $3, rows_written = rows_written + $4,
                    rows_failed = rows_failed + $5, updated_at = now() WHERE id = $1 AND cursor_row = $6 RETURNING id`,
              {
                bind: [
                  run.id,
                  b.last,
                  b.last - Math.max(b.from, 1),
                  written.length,
                  new Set(b.bad.map((e) => e.row)).size,
                  b.from,
                ],
                type: QueryTypes.SELECT,
                transaction,
              },
            );
            if (moved.length === 0) throw new AnotherAttempt();
            return written.length;
          })
          .then((imported) => {
            // counted once committed: a batch rolled back (and written again by a retry) is not counted twice
            core.metrics.transferRows.inc({ kind: 'import', outcome: 'imported' }, imported);
            core.metrics.transferRows.inc(
              { kind: 'import', outcome: 'refused' },
              new Set(b.bad.map((e) => e.row)).size,
            );
          });

      /**
       * Rows are validated in small chunks as they are read, yielding to the event loop after each so the database
       * replies of the batch being written are handled at once; a full batch is queued behind the previous write.
       */
      let checked = {
        first: 0,
        last: 0,
        chars: 0,
        good: [] as { p: PreparedLead; row: number }[],
        bad: [] as { row: number; column: string; message: string }[],
      };
      const check = async () => {
        if (!batch.length) return;
        const rows = batch;
        batch = [];
        const { prepared, errors } = checkLeadItems(
          rows.map((r) => r.item),
          'rows',
          catalogue,
        );
        prepared.forEach((p, i) => p && checked.good.push({ p, row: rows[i].row }));
        for (const [field, msgs] of Object.entries(errors)) {
          const row = rows[Number(field.split('.')[1])].row;
          for (const m of msgs)
            checked.bad.push({
              row,
              column: columnOf(field),
              message: m.replace(/rows\.\d+\.(products\.\d+\.)?/g, '').slice(0, 500),
            });
        }
        checked.first ||= rows[0].row;
        checked.last = rows[rows.length - 1].row;
        await new Promise<void>((resolve) => setImmediate(resolve));
      };
      const flush = async () => {
        await check();
        if (!checked.last) return;
        const full = checked;
        checked = { first: 0, last: 0, chars: 0, good: [], bad: [] };
        await older;
        const previous = newest;
        const done = write({ ...full, from: queuedTo }, previous);
        done.catch(() => {}); // awaited by the next batch or at the end
        queuedTo = full.last;
        batches++;
        older = previous?.done ?? Promise.resolve();
        newest = { done, phones: full.good.map((g) => g.p.phone_normalized) };
      };
      /** Writes what is left and waits for the last commit (which waits for every earlier one). */
      const drain = async () => {
        await flush();
        await newest?.done;
      };

      try {
        const inflated =
          run.file_type === 'xlsx' ? await inflatedSizeProblem(run.file_path, expansionLimits(core.config)) : null;
        if (inflated) {
          await fail(inflated);
          return;
        }
        for await (const cells of readRows(run.file_path, run.file_type)) {
          rowNo++;
          if (!header) {
            const names = cells.map((c) => String(c).trim().toLowerCase());
            for (const required of ['phone', 'sku']) {
              if (!names.includes(required)) {
                await fail(
                  `The file has no ${required} column ` +
                    '(the first row must name the columns; phone and sku are required).',
                );
                return;
              }
            }
            header = new Map(
              names
                .map((n, i) => [n, i] as [string, number])
                .filter(([n]) => FIELDS.includes(n))
                .reverse(),
            );
            extra = cells
              .map((c, i) => [String(c).trim(), i] as [string, number])
              .filter(([n]) => n && !FIELDS.includes(n.toLowerCase()) && !IGNORED.has(n.toLowerCase()))
              .slice(0, 100);
            continue;
          }
          if (rowNo - 1 > core.config.importMaxRows) {
            await drain();
            await fail(
              `The file has more than ${core.config.importMaxRows} rows; ` +
                `the first ${core.config.importMaxRows} were imported.`,
            );
            return;
          }
          if (rowNo <= run.cursor_row) continue;
          batch.push({ row: rowNo, item: toItem(header, extra, cells, catalogue) });
          for (const c of cells) checked.chars += c.length;
          if (batch.length >= CHECK) await check();
          if (
            checked.last - checked.first + 1 >= Math.min(BATCH, FIRST_BATCH * 2 ** batches) ||
            checked.chars >= BATCH_CHARS
          )
            await flush();
        }
        if (!header) {
          await fail('The file is empty.');
          return;
        }
        await drain();
        await run.reload();
        await ImportRun.update(
          { status: 'completed', rows_total: run.rows_read, finished_at: new Date() },
          { where: { id: run.id, status: 'running' } },
        );
        await fs.promises.rm(run.file_path, { force: true });
      } catch (err) {
        await Promise.allSettled([older, newest?.done]);
        if (
          err instanceof AnotherAttempt ||
          (err as { original?: { constraint?: string } }).original?.constraint === 'leads_import_row_key'
        ) {
          core.logger.warn({ runId }, 'another attempt of this import wrote its rows; this one stops');
          return;
        }
        // An outage is not the file's fault: the job waits for the database and resumes from the cursor, upload kept.
        if (isDatabaseUnavailable(err)) throw err;
        core.logger.error({ err, runId }, 'import failed');
        await fail(`The file could not be read: ${(err as Error).message}`.slice(0, 1000));
      }
    },
  };
}
export type ImportService = ReturnType<typeof createImportService>;
