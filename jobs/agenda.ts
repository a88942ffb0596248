import { Agenda, type Job } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { AppContext, JobControl } from '../src/app-context.js';
import { PRIORITY, type JobQueue } from '../src/context.js';
import type { Config } from '../src/config.js';
import type { Metrics } from '../src/metrics.js';
import { within } from '../src/timers.js';
import type { JobDefinition } from './job.js';
import { insertJobsIn, removeFinishedJobs } from './job-store.js';
import { defineJob, type JobRuntime, type Logger } from './job-runner.js';

export interface JobSystem extends JobControl {
  agenda: Agenda;
  queue: JobQueue;
  /** Registers the handlers and starts polling; only processes with the worker role call it. */
  startWorker(ctx: AppContext, defs: JobDefinition<any>[]): Promise<void>;
}

/** The job store: the application's PostgreSQL through a pool of its own, or MongoDB when AGENDA_MONGO_URL is set. */
async function openBackend(config: Readonly<Config>, dbUrl: string, logger: Logger, closing: () => boolean) {
  if (config.agendaMongoUrl) {
    const { MongoBackend } = await import('@agendajs/mongo-backend');
    return { backend: new MongoBackend({ address: config.agendaMongoUrl }), pool: null };
  }
  // As on Sequelize's pool (src/db/index.ts): a server that stops answering is noticed, a connect gives up after 5 s.
  const pool = new pg.Pool({ connectionString: dbUrl, max: 4, keepAlive: true, connectionTimeoutMillis: 5000 });
  // An idle client whose server went away emits 'error' on the pool; unhandled, that ends the process. The pool drops
  // the client and the next query opens a new connection, so there is nothing else to do.
  // The server shutting down (57P01: a Ctrl-C reaches the embedded server of the same process group as soon as this
  // process) is a requested stop, said at info; a lost server after that is noticed by the next query and readiness.
  pool.on('error', (err) => {
    const stop = closing() || (err as { code?: string }).code === '57P01';
    logger[stop ? 'info' : 'warn']({ err: err.message }, 'job store connection lost');
  });
  await pool.query('SELECT 1');
  const backend = new PostgresBackend({ pool, ensureSchema: false });
  keepListening(backend, logger, closing);
  return { backend, pool };
}

/** Agenda skips writing the outcome of a job this process lost during an outage (JobRuntime.lost). */
function skipLostOutcomes(agenda: Agenda, lost: Set<string>): void {
  const repository = agenda.db as unknown as { saveJobState(attrs: Job['attrs'], opts?: unknown): Promise<void> };
  const saveJobState = repository.saveJobState.bind(repository);
  repository.saveJobState = (attrs, opts) =>
    lost.delete(String(attrs._id)) ? Promise.resolve() : saveJobState(attrs, opts);
}

async function closeOnce(rt: JobRuntime, started: boolean, graceMs: number): Promise<void> {
  const { agenda, pool, logger, running } = rt;
  // stop() takes no new jobs and unlocks the ones fetched but not started; running ones keep their locks. A database
  // that accepts connections but never answers must not hold the shutdown.
  await within(agenda.stop(false), 2000);
  if (started && running.size) {
    await within(Promise.allSettled([...running.values()].map((r) => r.done)), graceMs);
    const held = [...running.keys()];
    if (held.length) {
      // A requested stop: info, not a warning. The handlers learn it (their outcome will not be written, see
      // skipLostOutcomes) and stop at their next safe point; an import resumes from its cursor on another worker.
      logger.info({ jobs: held.length }, 'handing running jobs back to the queue');
      for (const id of held) {
        rt.lost.add(id);
        running.get(id)?.handBack.abort();
      }
      // A renewal still in flight would land after the hand-back and make the next worker wait out the lock.
      await within(Promise.all([...running.values()].map((r) => r.heartbeat.stop())), 1000);
      // A started one-off job has no next run time, so Agenda would never pick it up again with its lock cleared
      // (its own unlock skips such jobs); an expired lock is what makes another worker take it at once. On MongoDB
      // the locks simply run out after JOBS_LOCK_SECONDS.
      if (pool)
        await within(
          pool.query('UPDATE agenda_jobs SET locked_at = to_timestamp(0) WHERE id = ANY($1::uuid[])', [held]),
          1000,
        );
    }
  }
  // Ending the pool also keeps an abandoned handler from writing its outcome over a lock another worker now holds.
  await within(pool ? pool.end() : agenda.stop(true), 1000);
}

/** Jobs due and waiting, and running, per priority (read from agenda_jobs; none on MongoDB). */
async function queueDepth(pool: pg.Pool | null, lockMs: number) {
  if (!pool) return [];
  const { rows } = await pool.query<{ priority: number; waiting: number; running: number }>(
    `SELECT priority, count(*) FILTER (WHERE NOT running)::int AS waiting,
            count(*) FILTER (WHERE running)::int AS running
       FROM (SELECT priority, coalesce(locked_at > now() - make_interval(secs => $1), false) AS running
               FROM agenda_jobs
              WHERE disabled IS NOT TRUE
                AND (next_run_at <= now() OR locked_at > now() - make_interval(secs => $1))) j
      GROUP BY priority`,
    [lockMs / 1000],
  );
  // every priority is reported, at 0 when nothing waits: an alert on a missing series would not fire
  return Object.entries(PRIORITY).map(([priority, value]) => {
    const row = rows.find((r) => r.priority === value);
    return { priority, waiting: row?.waiting ?? 0, running: row?.running ?? 0 };
  });
}

/**
 * The queue services enqueue through. `enqueueIn` inserts into the PostgreSQL store within the caller's transaction
 * (jobs/job-store.ts); MongoDB cannot join that transaction, so there the jobs are saved once it has committed.
 */
function jobQueue(agenda: Agenda, pool: pg.Pool | null): JobQueue {
  return {
    async enqueue(name, data, opts = {}) {
      await agenda
        .create(name, data)
        .priority(PRIORITY[opts.priority ?? 'NORMAL'])
        .save();
    },
    async enqueueIn(transaction, name, items, opts = {}) {
      const priority = PRIORITY[opts.priority ?? 'NORMAL'];
      if (pool) return insertJobsIn(transaction, name, priority, items);
      transaction.afterCommit(async () => {
        for (const data of items) await agenda.create(name, data).priority(priority).save();
      });
    },
  };
}

/**
 * Agenda on the application's PostgreSQL (agenda_jobs is created by a migration, ensureSchema: false), or on
 * MongoDB when AGENDA_MONGO_URL is set. The database is reachable before Agenda is constructed (it connects at once).
 */
export async function createJobSystem(
  config: Readonly<Config>,
  dbUrl: string,
  logger: Logger,
  metrics: Metrics,
): Promise<JobSystem> {
  let closing: Promise<void> | undefined;
  let started = false;
  const { backend, pool } = await openBackend(config, dbUrl, logger, () => !!closing);
  // A short poll keeps pickup latency well under a second even when a LISTEN/NOTIFY wake-up is missed.
  const agenda = new Agenda({
    backend,
    processEvery: 250,
    maxConcurrency: 50,
    defaultConcurrency: 1,
    defaultLockLifetime: config.jobsLockMs,
  });
  await agenda.ready;
  const rt: JobRuntime = {
    agenda,
    pool,
    logger,
    metrics,
    lost: new Set(),
    running: new Map(),
    closing: () => !!closing,
    lockMs: config.jobsLockMs,
  };
  skipLostOutcomes(agenda, rt.lost);
  return {
    agenda,
    queue: jobQueue(agenda, pool),
    async startWorker(ctx, defs) {
      for (const d of defs) defineJob(rt, ctx, d);
      await agenda.start();
      started = true;
      for (const d of defs) if (d.every) await agenda.every(d.every, d.name, undefined, { skipImmediate: true });
      for (const d of defs) if (d.every && d.wakeOn) wakeOnNotify(ctx, pool, d.name, d.wakeOn);
    },
    async ping() {
      if (pool) await pool.query('SELECT 1 FROM agenda_jobs LIMIT 1');
    },
    queueDepth: () => queueDepth(pool, config.jobsLockMs),
    async removeFinished() {
      if (!pool) return 0;
      const now = Date.now();
      const doneBefore = new Date(now - config.jobsRetentionMs);
      return removeFinishedJobs(pool, { doneBefore, failedBefore: new Date(now - config.jobsFailedRetentionMs) });
    },
    close(opts = {}) {
      closing ??= closeOnce(rt, started, opts.graceMs ?? 5000);
      return closing;
    },
  };
}

/**
 * Brings a repeating job's next run forward to now whenever `channel` is notified (at most every 200 ms): the job's
 * one row in agenda_jobs is due at once and the next poll (250 ms) starts it. A run in progress is left alone; what
 * it does not see, the next run (`every`) does. Nothing to do on MongoDB, where the job just runs every interval.
 */
function wakeOnNotify(ctx: AppContext, pool: pg.Pool | null, name: string, channel: string): void {
  if (!pool) return;
  let waking = false;
  ctx.notifications.subscribe(channel, () => {
    if (waking) return;
    waking = true;
    setTimeout(() => {
      waking = false;
      pool
        .query(
          `UPDATE agenda_jobs SET next_run_at = now()
            WHERE name = $1 AND type = 'single' AND next_run_at > now() AND locked_at IS NULL`,
          [name],
        )
        .catch((err: Error) => ctx.logger.debug({ err: err.message, job: name }, 'could not wake the job'));
    }, 200).unref();
  });
}

/**
 * Agenda's LISTEN connection re-connects by itself but gives up after ten attempts (about a minute and a half), and
 * reports errors as 'error' events that end the process when nobody listens. Polling still finds every job without
 * it; this keeps the wake-ups coming back after a longer outage too.
 */
function keepListening(backend: PostgresBackend, logger: Logger, closing: () => boolean): void {
  const channel = backend.notificationChannel as unknown as
    (NodeJS.EventEmitter & { connect(): Promise<void> }) | undefined;
  if (!channel) return;
  channel.on('error', (err: Error) => logger.debug({ err: err.message }, 'job notification channel error'));
  channel.on('stateChange', (state: string) => {
    if (state !== 'error' || closing()) return;
    setTimeout(() => {
      if (!closing()) void channel.connect().catch(() => {});
    }, 30_000).unref();
  });
}
