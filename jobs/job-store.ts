import type pg from 'pg';
import type { Sequelize, Transaction } from 'sequelize';

/** The table and the NOTIFY channel of Agenda's PostgreSQL backend (migrations/20261122000200-agenda-jobs.ts). */
export const JOBS_TABLE = 'agenda_jobs';
const JOBS_CHANNEL = 'agenda_jobs';

/**
 * One-off jobs inserted in the caller's transaction, as Agenda's PostgreSQL backend inserts them (type `normal`, due
 * now): they exist if and only if the transaction commits. Each is announced on the backend's NOTIFY channel, which
 * PostgreSQL delivers at the commit, so a worker starts it as soon as Agenda's own `save()` would have; a missed
 * notification only costs a poll (250 ms).
 */
export async function insertJobsIn(
  transaction: Transaction,
  name: string,
  priority: number,
  items: Record<string, unknown>[],
): Promise<void> {
  if (!items.length) return;
  // Sequelize keeps the transaction's instance on it (not in its type declarations)
  const { sequelize } = transaction as unknown as { sequelize: Sequelize };
  await sequelize.query(
    `WITH job AS (
       INSERT INTO ${JOBS_TABLE} (name, priority, next_run_at, type, data)
       SELECT $1, $2, now(), 'normal', d FROM unnest($3::jsonb[]) AS d
       RETURNING id, name, priority, next_run_at
     )
     SELECT pg_notify($4, json_build_object('jobId', id, 'jobName', name, 'nextRunAt', next_run_at,
                                            'priority', priority, 'timestamp', now())::text)
       FROM job`,
    { bind: [name, priority, items.map((d) => JSON.stringify(d)), JOBS_CHANNEL], transaction },
  );
}

/**
 * Removes finished one-off jobs (a push, an import, an export, a wake-up: type `normal`, no next run, not locked)
 * whose last run ended before `doneBefore`, or before `failedBefore` when that run failed (kept longer for
 * inspection), in batches of `batch` rows. Repeating jobs (type `single`), jobs waiting, running, retrying or handed
 * back at a shutdown stay. Answers how many went.
 */
export async function removeFinishedJobs(
  pool: pg.Pool,
  { doneBefore, failedBefore }: { doneBefore: Date; failedBefore: Date },
  batch = 10_000,
): Promise<number> {
  const upTo = new Date(Math.max(doneBefore.getTime(), failedBefore.getTime()));
  let removed = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM ${JOBS_TABLE} WHERE id IN (
         SELECT id FROM ${JOBS_TABLE}
          WHERE next_run_at IS NULL AND type = 'normal' AND last_finished_at < $1
            AND locked_at IS NULL AND repeat_interval IS NULL AND repeat_at IS NULL
            AND last_finished_at < CASE WHEN failed_at >= last_finished_at THEN $3::timestamptz ELSE $2 END
          LIMIT $4)`,
      [upTo, doneBefore, failedBefore, batch],
    );
    removed += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return removed;
  }
}
