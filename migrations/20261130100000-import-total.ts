import type { Migration } from '../src/db/migrator.js';

/**
 * An import's total is known from the start of its run (docs/import-export.md, "Progress"): counted for a CSV, read
 * from the sheet's dimension for a workbook, or, until then, estimated from the upload's size. This flag says which:
 * true while `rows_total` is an estimate, false once counted (and at the end, when it is the rows read).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE import_runs ADD COLUMN rows_total_estimated boolean NOT NULL DEFAULT false');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE import_runs DROP COLUMN rows_total_estimated');
};
