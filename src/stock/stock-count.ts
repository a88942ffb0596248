import fs from 'node:fs';
import type { Transaction } from 'sequelize';
import { runActor } from '../accounts/run-actor.js';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { isDatabaseUnavailable } from '../db/index.js';
import { insertBadRows, moveCursor, type BadRow } from '../import-runs.js';
import { authorize } from '../policy.js';
import { keepUpload, uploadAccount, withKeptUpload, type UploadedFile } from '../uploads.js';
import { checkRows, readCount, type Counted } from './stock-count-file.js';
import { applyWaiting } from './stock.follows.js';
import { isRetryable, lockLevels, recordMovements, type Movement } from './stock.repository.js';

// The stock count import (docs/stock.md "Stock counts"): a file of sku, warehouse (optional) and quantity, the
// on_hand counted on the shelf, becomes one adjustment per row for the difference. An import run of kind `stock`
// (progress, report and import.finished like the lead import), an IMPORTANT job, in batches that each commit their
// adjustments, their refused rows and the run's cursor together: a run cut short resumes after its last batch.

export const STOCK_COUNT_JOB = 'import-stock-count';
/** Rows per transaction. */
const BATCH = 1000;

/** Checks the upload, keeps it and queues the count (IMPORTANT); the temporary upload goes whatever happens. */
export async function startCount(core: Core, actor: Actor, file: UploadedFile, options: unknown = {}) {
  try {
    authorize(actor, 'create', 'stock');
    const accountId = await uploadAccount(core, actor, options);
    authorize(actor, 'create', 'stock', { account_id: accountId });
    const { stored, type } = await keepUpload(core, accountId, file);
    return await withKeptUpload(stored, () =>
      core.db.sequelize.transaction(async (transaction) => {
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
      }),
    );
  } finally {
    await fs.promises.rm(file.path, { force: true });
  }
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
  await applyWaiting(sequelize, t, run.account_id); // a count is of what is on the shelf: parcels gone are gone
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
export async function runCount(core: Core, runId: number, handedBack?: AbortSignal): Promise<void> {
  const { ImportRun, User } = core.models;
  const run = await ImportRun.findByPk(runId);
  if (!run || run.kind !== 'stock' || run.status === 'completed' || run.status === 'failed') return;
  const actor = await runActor(run, User, 'import');
  if (!actor) return;
  // only a run still queued or running: a late attempt never takes an ended run back to running
  const [started] = await ImportRun.update(
    { status: 'running', started_at: run.started_at ?? new Date() },
    { where: { id: run.id, status: ['queued', 'running'] } },
  );
  if (!started) return;
  try {
    const rows = await readCount(core, run.file_path, run.file_type);
    if (typeof rows === 'string') return await finish(core, run.id, { status: 'failed', error: rows }, run.file_path);
    await ImportRun.update({ rows_total: rows.length, rows_total_estimated: false }, { where: { id: run.id } });
    const { good, bad } = await checkRows(core, run.account_id, rows);
    const by = { name: actor.name, userId: actorUserId(actor) };
    let from = run.cursor_row;
    for (let i = 0; i < rows.length; i += BATCH) {
      // a stopping worker hands the run back between batches; the next attempt resumes after the cursor
      if (handedBack?.aborted) return;
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
    // an outage, a deadlock or a serialization failure is not the file's fault: the job runs again from the cursor
    if (isDatabaseUnavailable(err) || isRetryable(err)) throw err;
    core.logger.error({ err, runId }, 'stock count failed');
    const error = `The file could not be read: ${(err as Error).message}`.slice(0, 1000);
    await finish(core, run.id, { status: 'failed', error }, run.file_path);
  }
}
