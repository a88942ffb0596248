import { exponential, type Agenda, type Job } from 'agenda';
import type pg from 'pg';
import type { AppContext } from '../src/app-context.js';
import { isDatabaseUnavailable } from '../src/db/index.js';
import type { Metrics } from '../src/metrics.js';
import { delay, within } from '../src/timers.js';
import type { JobDefinition } from './job.js';

export type Logger = AppContext['logger'];

/** What the job system of one process holds while it runs jobs; jobs/agenda.ts builds it, these functions use it. */
export interface JobRuntime {
  agenda: Agenda;
  /** The PostgreSQL job store's pool; null on MongoDB. */
  pool: pg.Pool | null;
  logger: Logger;
  metrics: Metrics;
  /**
   * Jobs another worker took while this one waited out a database outage. Agenda writes a job's outcome by id when its
   * handler returns; for these that would record a finish over the lock and the run of the worker that has them now.
   */
  lost: Set<string>;
  /**
   * Jobs this process is running, each with the switch that stops its heartbeat and the one that tells its handler
   * the job was handed back at shutdown (it stops at its next safe point; another worker runs it again).
   */
  running: Map<string, { done: Promise<unknown>; heartbeat: Heartbeat; handBack: AbortController }>;
  /** True once close() began: no new work, no reconnects. */
  closing(): boolean;
  /**
   * How long a lock outlives its worker (JOBS_LOCK_SECONDS). A running job renews it (heartbeat) every third of this,
   * so a live job is never taken by another worker however long it runs, and the jobs of a killed worker are taken by
   * another one within it.
   */
  lockMs: number;
}

/**
 * Takes the job's lock back after an outage: the heartbeats failed meanwhile, so the stored lock may have run out and
 * another worker may have taken the job. False when it has (that worker runs it now).
 */
async function relock({ pool, lockMs }: JobRuntime, job: Job, heartbeat: Heartbeat): Promise<boolean> {
  if (!pool) return true; // MongoDB: no conditional update here; handlers are idempotent
  const now = new Date();
  const { rowCount } = await pool.query(
    'UPDATE agenda_jobs SET locked_at = $2 WHERE id = $1 AND (locked_at = $3 OR locked_at <= $4)',
    [String(job.attrs._id), now, heartbeat.lastLock(), new Date(now.getTime() - lockMs)],
  );
  if (rowCount) heartbeat.locked(now);
  return rowCount === 1;
}

/**
 * A handler that failed because the database could not be reached waits for it and runs again (handlers are
 * idempotent), so an outage pauses jobs instead of spending their retries or failing imports and exports. Only a
 * database that really does not answer counts: if it answers at once, the error is the handler's own.
 */
async function pausedWhileDatabaseDown(
  rt: JobRuntime,
  job: Job,
  heartbeat: Heartbeat,
  fn: () => Promise<void>,
  ping: () => Promise<unknown>,
): Promise<'ran' | 'lost'> {
  for (;;) {
    try {
      await fn();
      return 'ran';
    } catch (err) {
      const answers = () =>
        ping().then(
          () => true,
          () => false,
        );
      if (!isDatabaseUnavailable(err) || rt.closing() || (await answers())) throw err;
      rt.logger.warn(
        { err: (err as Error).message, job: job.attrs.name },
        'database unavailable: the job waits for it',
      );
      while (!rt.closing() && !(await answers())) await delay(1000);
      if (rt.closing()) throw err;
      if (!(await relock(rt, job, heartbeat).catch(() => false))) {
        rt.logger.warn(
          { job: job.attrs.name },
          'another worker took the job during the outage; leaving it to that worker',
        );
        rt.lost.add(String(job.attrs._id));
        return 'lost';
      }
    }
  }
}

/** The account a job's data names, when it names one (imports, exports). */
const accountOf = (data: unknown): number | null => {
  const id = (data as { accountId?: unknown } | null)?.accountId;
  return typeof id === 'number' ? id : null;
};

/** Defines one kind of job on Agenda: its handler runs with a heartbeat, waits out outages, and is measured. */
export function defineJob(rt: JobRuntime, ctx: AppContext, d: JobDefinition<any>): void {
  const concurrency = d.concurrency(ctx);
  rt.agenda.define(
    d.name,
    async (job) => {
      const id = String(job.attrs._id);
      const heartbeat = startHeartbeat(job, rt.logger, rt.lockMs);
      const handBack = new AbortController();
      const labels = { job: d.name, priority: d.priority };
      const timer = rt.metrics.jobDuration.startTimer(labels);
      const started = performance.now();
      const done = pausedWhileDatabaseDown(
        rt,
        job,
        heartbeat,
        () => d.handler(ctx, job.attrs.data as never, job as never, handBack.signal),
        () => ctx.db.sequelize.query('SELECT 1'),
      );
      rt.running.set(id, { done, heartbeat, handBack });
      let outcome = 'failed';
      let error: string | undefined;
      try {
        outcome = (await done) === 'ran' ? 'succeeded' : 'lost';
      } catch (err) {
        error = (err as Error)?.message ?? String(err);
        throw err;
      } finally {
        if (handBack.signal.aborted) outcome = 'handed back';
        timer();
        rt.metrics.jobRuns.inc({ ...labels, outcome });
        rt.running.delete(id);
        await within(heartbeat.stop(), 1000);
        // one line per run: what ran, for which account, how long, and how it ended
        rt.logger.info(
          {
            job: d.name,
            job_id: id,
            account_id: accountOf(job.attrs.data),
            duration_ms: Math.round(performance.now() - started),
            outcome,
            ...(error && outcome === 'failed' ? { err: error } : {}),
          },
          'job run',
        );
      }
    },
    {
      concurrency,
      // A worker locks no more than it can run: what it holds beyond that would wait there, and die with it.
      lockLimit: concurrency,
      ...(d.retries ? { backoff: exponential({ delay: 1000, maxRetries: d.retries, factor: 2 }) } : {}),
    },
  );
}

export interface Heartbeat {
  /** The lock time last written to the database (by Agenda's lock, or by a renewal that succeeded). */
  lastLock(): Date | undefined;
  locked(at: Date): void;
  /** Ends the renewals; resolves once one still in flight has landed, so none lands after the outcome is recorded. */
  stop(): Promise<void>;
}

/** Renews a running job's lock every third of the lock lifetime. */
function startHeartbeat(job: Job, logger: Logger, lockMs: number): Heartbeat {
  let last = job.attrs.lockedAt;
  let beat: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    beat = job.touch().then(
      () => {
        last = job.attrs.lockedAt;
      },
      (err) => logger.warn({ err: (err as Error).message, job: job.attrs.name }, 'job heartbeat failed'),
    );
  }, lockMs / 3);
  return {
    lastLock: () => last,
    locked(at) {
      last = at;
      job.attrs.lockedAt = at;
    },
    stop() {
      clearInterval(timer);
      return beat;
    },
  };
}
