import type { Sequelize, Transaction } from 'sequelize';
import { select } from './query.js';

/* The bookkeeping of an import run of any kind (leads, stock counts): its refused rows and its cursor. */

/** A refused row of an import: its file row, the column, and the message for the report. */
export interface BadRow {
  row: number;
  column: string;
  message: string;
}

/** Keeps a batch's refused rows for the run's report (a row written again by a retry is kept once). */
export async function insertBadRows(
  sequelize: Sequelize,
  transaction: Transaction,
  run: { id: number; account_id: number },
  bad: BadRow[],
) {
  if (!bad.length) return;
  await sequelize.query(
    `INSERT INTO import_run_errors (account_id, import_run_id, row_number, column_name, message)
     SELECT $1, $2, * FROM unnest($3::int[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING`,
    {
      bind: [run.account_id, run.id, bad.map((e) => e.row), bad.map((e) => e.column), bad.map((e) => e.message)],
      transaction,
    },
  );
}

/**
 * Moves the run's cursor from `from` to `to` and adds the batch's counts, only if the cursor still stands at `from`:
 * false means another attempt of the run has written these rows.
 */
export async function moveCursor(
  sequelize: Sequelize,
  transaction: Transaction,
  runId: number,
  b: { from: number; to: number; read: number; written: number; failed: number },
): Promise<boolean> {
  const moved = await select(
    sequelize,
    `UPDATE import_runs SET cursor_row = $2, rows_read = rows_read + $3, rows_written = rows_written + $4,
            rows_failed = rows_failed + $5, updated_at = now() WHERE id = $1 AND cursor_row = $6 RETURNING id`,
    [runId, b.to, b.read, b.written, b.failed, b.from],
    transaction,
  );
  return moved.length > 0;
}
