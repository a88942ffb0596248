import type { Migration } from '../src/db/migrator.js';

/**
 * The finished one-off jobs by finish time, for the hourly clean-up of agenda_jobs (jobs/job-store.ts
 * `removeFinishedJobs`): it reads only the rows it removes, however many jobs wait or repeat.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(
    `CREATE INDEX IF NOT EXISTS agenda_jobs_finished_idx ON agenda_jobs (last_finished_at)
      WHERE next_run_at IS NULL AND type = 'normal'`,
  );
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP INDEX IF EXISTS agenda_jobs_finished_idx');
};
