import fs from 'node:fs';
import Joi from 'joi';
import type { Transaction } from 'sequelize';
import { runActor } from '../accounts/run-actor.js';
import { actorUserId, type Actor } from '../actor.js';
import { newRowAccount } from '../chosen-account.js';
import type { Core } from '../context.js';
import { isDatabaseUnavailable } from '../db/index.js';
import { ValidationError } from '../errors.js';
import { unescapeCell } from '../formula-cells.js';
import { insertBadRows, moveCursor, type BadRow } from '../import-runs.js';
import { authorize, isSystemWide } from '../policy.js';
import { inflatedSizeProblem, readRowChunks } from '../spreadsheet.js';
import { expansionLimits, keepUpload, type UploadedFile } from '../uploads.js';
import { isFitText, validate } from '../validation.js';
import { lockLevels, recordMovements, type Movement } from './stock.repository.js';
import { productsBySku, warehousesOf, type WarehouseView } from './stock.views.js';

// The stock count import (docs/stock.md "Stock counts"): a file of sku, warehouse (optional) and quantity, the
// on_hand counted on the shelf, becomes one adjustment per row for the difference. An import run of kind `stock`
// (progress, report and import.finished like the lead import), an IMPORTANT job, in batches that each commit their
// adjustments, their refused rows and the run's cursor together: a run cut short resumes after its last batch.

export const STOCK_COUNT_JOB = 'import-stock-count';
/** Rows a count file may hold (a count is one row per product and warehouse). */
export const STOCK_COUNT_MAX_ROWS = 50_000;
/** Rows per transaction. */
const BATCH = 1000;
const QUANTITY_MAX = 10_000_000;

const optionsSchema = Joi.object({ account_id: Joi.number().integer().positive().empty('') });

/** Checks the upload, keeps it and queues the count (IMPORTANT); the temporary upload goes whatever happens. */
export async function startCount(core: Core, actor: Actor, file: UploadedFile, options: unknown = {}) {
  try {
    authorize(actor, 'create', 'stock');
    const { account_id } = validate<{ account_id?: number }>(optionsSchema, options);
    if (account_id === undefined && isSystemWide(actor))
      throw ValidationError.single('account_id', 'The account_id field is required.');
    const accountId = await newRowAccount(core.db.sequelize, actor, account_id);
    authorize(actor, 'create', 'stock', { account_id: accountId });
    const { stored, type } = await keepUpload(core, accountId, file);
    return await core.db.sequelize.transaction(async (transaction) => {
      const run = await core.models.ImportRun.create(
        {
          account_id: accountId,
          user_id: actor.kind === 'system' ? null : actor.userId,
          kind: 'stock',
          file_name: file.originalname.slice(0, 255),
          file_path: stored,
          file_type: type,
        },
        { transaction },
      );
      await core.queue.enqueueIn(transaction, STOCK_COUNT_JOB, [{ runId: run.id, accountId }], {
        priority: 'IMPORTANT',
      });
      return run;
    });
  } finally {
    await fs.promises.rm(file.path, { force: true });
  }
}

/** A data row as read: its file row and cells by column. */
interface CountRow {
  row: number;
  sku: string;
  warehouse: string;
  quantity: string;
}
/** A row that passed: the product and warehouse it counts and the units counted. */
interface Counted {
  row: number;
  productId: number;
  sku: string;
  warehouseId: number;
  counted: number;
}

/** The columns' positions, from the header (any case, any order; others ignored); null names the missing one. */
function headerOf(cells: string[]): { sku: number; warehouse?: number; quantity: number } | { missing: string } {
  const at = (name: string) => {
    const i = cells.findIndex(
      (c) =>
        String(c ?? '')
          .trim()
          .toLowerCase() === name,
    );
    return i < 0 ? undefined : i;
  };
  const sku = at('sku');
  const quantity = at('quantity');
  if (sku === undefined || quantity === undefined)
    return { missing: `The file has no ${sku === undefined ? 'sku' : 'quantity'} column (sku, warehouse, quantity).` };
  return { sku, warehouse: at('warehouse'), quantity };
}

/** Reads the whole file (a count is small: STOCK_COUNT_MAX_ROWS at most); a string says why it cannot be read. */
async function readCount(core: Core, path: string, type: 'xlsx' | 'csv'): Promise<CountRow[] | string> {
  const inflated = type === 'xlsx' ? await inflatedSizeProblem(path, expansionLimits(core.config)) : null;
  if (inflated) return inflated;
  let header: ReturnType<typeof headerOf> | null = null;
  const rows: CountRow[] = [];
  let rowNo = 0;
  const cell = (cells: string[], i: number | undefined) =>
    i === undefined ? '' : unescapeCell(String(cells[i] ?? '').trim());
  for await (const chunk of readRowChunks(path, type))
    for (const cells of chunk) {
      rowNo += 1;
      if (!header) {
        header = headerOf(cells);
        if ('missing' in header) return header.missing;
        continue;
      }
      if (cells.every((c) => String(c ?? '').trim() === '')) continue;
      if (rows.length >= STOCK_COUNT_MAX_ROWS) return `The file has more than ${STOCK_COUNT_MAX_ROWS} rows.`;
      const h = header;
      rows.push({
        row: rowNo,
        sku: cell(cells, h.sku),
        warehouse: cell(cells, h.warehouse),
        quantity: cell(cells, h.quantity),
      });
    }
  return header ? rows : 'The file is empty.';
}

/** Each row checked: an active product of the account, one of its warehouses, a whole count, counted once. */
async function checkRows(core: Core, accountId: number, rows: CountRow[]) {
  const { sequelize } = core.db;
  const warehouses = await warehousesOf(sequelize, accountId);
  const fit = (s: string) => s.length > 0 && s.length <= 100 && isFitText(s);
  const products = await productsBySku(sequelize, accountId, [...new Set(rows.map((r) => r.sku).filter(fit))]);
  const seen = new Map<string, number>();
  const good: Counted[] = [];
  const bad: BadRow[] = [];
  for (const r of rows) {
    const problems = rowProblems(r, products.get(r.sku.toLowerCase()), placeOf(warehouses, r.warehouse), seen);
    if (problems.length) bad.push(...problems.map(([column, message]) => ({ row: r.row, column, message })));
    else {
      const product = products.get(r.sku.toLowerCase())!;
      const warehouse = placeOf(warehouses, r.warehouse)!;
      good.push({
        row: r.row,
        productId: product.id,
        sku: product.sku,
        warehouseId: warehouse.id,
        counted: Number(r.quantity),
      });
    }
  }
  return { good, bad };
}

const placeOf = (warehouses: WarehouseView[], code: string) =>
  code ? warehouses.find((w) => w.code === code.toUpperCase()) : warehouses.find((w) => w.is_default);

/** What is wrong with one row, as [column, message] pairs (nothing: it counts). */
function rowProblems(
  r: CountRow,
  product: { id: number; sku: string } | undefined,
  warehouse: WarehouseView | undefined,
  seen: Map<string, number>,
): [string, string][] {
  const problems: [string, string][] = [];
  const shown = (s: string) => (isFitText(s) ? s.slice(0, 100) : 'this value');
  if (!r.sku) problems.push(['sku', 'The sku field is required.']);
  else if (!product) problems.push(['sku', `The sku ${shown(r.sku)} is not an active product of the account.`]);
  if (!warehouse) problems.push(['warehouse', `The warehouse ${shown(r.warehouse)} is not one of the account's.`]);
  if (!/^\d{1,8}$/.test(r.quantity) || Number(r.quantity) > QUANTITY_MAX)
    problems.push([
      'quantity',
      `The quantity must be a whole number from 0 to ${QUANTITY_MAX} (read: ${shown(r.quantity) || 'nothing'}).`,
    ]);
  if (product && warehouse && !problems.length) {
    const key = `${product.id} ${warehouse.id}`;
    const first = seen.get(key);
    if (first) problems.push(['sku', `${product.sku} in ${warehouse.code} is counted twice (first on row ${first}).`]);
    else seen.set(key, r.row);
  }
  return problems;
}

/** One batch: the adjustments for the differences, the refused rows and the cursor, in one transaction. */
async function writeBatch(
  core: Core,
  t: Transaction,
  run: { id: number; account_id: number; file_name: string },
  by: { name: string; userId: number | null },
  b: { from: number; to: number; good: Counted[]; bad: BadRow[] },
) {
  const { sequelize } = core.db;
  const levels = await lockLevels(sequelize, t, run.account_id, b.good);
  const reason = `Stock count: ${run.file_name}`.slice(0, 500);
  const rows: Movement[] = [];
  for (const g of b.good) {
    const level = levels.find((l) => l.productId === g.productId && l.warehouseId === g.warehouseId);
    const difference = g.counted - (level?.onHand ?? 0);
    if (difference !== 0)
      rows.push({
        accountId: run.account_id,
        productId: g.productId,
        warehouseId: g.warehouseId,
        sku: g.sku,
        kind: 'adjustment',
        quantity: difference,
        reservedChange: 0,
        reason,
      });
  }
  await recordMovements(sequelize, t, rows, by);
  await insertBadRows(sequelize, t, run, b.bad);
  const failed = new Set(b.bad.map((e) => e.row)).size;
  const moved = await moveCursor(sequelize, t, run.id, {
    from: b.from,
    to: b.to,
    read: b.good.length + failed,
    written: b.good.length,
    failed,
  });
  if (!moved) throw new AnotherAttempt();
}

class AnotherAttempt extends Error {}

async function finish(core: Core, runId: number, values: object, path: string) {
  await core.models.ImportRun.update(
    { ...values, finished_at: new Date() },
    { where: { id: runId, status: 'running' } },
  );
  await fs.promises.rm(path, { force: true });
}

/**
 * The job: reads and checks the whole count, then writes it in batches of BATCH file rows from the run's cursor.
 * An attempt that finds another one moved the cursor stops; an outage is thrown for the job to retry (file kept).
 */
export async function runCount(core: Core, runId: number): Promise<void> {
  const { ImportRun, User } = core.models;
  const run = await ImportRun.findByPk(runId);
  if (!run || run.kind !== 'stock' || run.status === 'completed' || run.status === 'failed') return;
  const actor = await runActor(run, User, 'import');
  if (!actor) return;
  await ImportRun.update({ status: 'running', started_at: run.started_at ?? new Date() }, { where: { id: run.id } });
  try {
    const rows = await readCount(core, run.file_path, run.file_type);
    if (typeof rows === 'string') return await finish(core, run.id, { status: 'failed', error: rows }, run.file_path);
    await ImportRun.update({ rows_total: rows.length, rows_total_estimated: false }, { where: { id: run.id } });
    const { good, bad } = await checkRows(core, run.account_id, rows);
    const by = { name: actor.name, userId: actorUserId(actor) };
    let from = run.cursor_row;
    for (let i = 0; i < rows.length; i += BATCH) {
      const to = rows[Math.min(i + BATCH, rows.length) - 1].row;
      if (to <= from) continue;
      const inBatch = <T extends { row: number }>(list: T[]) => list.filter((x) => x.row > from && x.row <= to);
      await core.db.sequelize.transaction((t) =>
        writeBatch(core, t, run, by, { from, to, good: inBatch(good), bad: inBatch(bad) }),
      );
      from = to;
    }
    await finish(core, run.id, { status: 'completed' }, run.file_path);
  } catch (err) {
    if (err instanceof AnotherAttempt) return;
    if (isDatabaseUnavailable(err)) throw err;
    core.logger.error({ err, runId }, 'stock count failed');
    const error = `The file could not be read: ${(err as Error).message}`.slice(0, 1000);
    await finish(core, run.id, { status: 'failed', error }, run.file_path);
  }
}
