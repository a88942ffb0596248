import { Agenda, exponential, type Job } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import { PRIORITY, type AppContext, type JobControl, type JobQueue } from '../src/context.js';
import type { Config } from '../src/config.js';
import { isDatabaseUnavailable } from '../src/db/index.js';
import type { Metrics } from '../src/metrics.js';
import { delay, within } from '../src/timers.js';
import type { JobDefinition } from './job.js';

export interface JobSystem extends JobControl {
  agenda: Agenda;
  queue: JobQueue;
  /** Registers the handlers and starts polling; only processes with the worker role call it. */
  startWorker(ctx: AppContext, defs: JobDefinition<any>[]): Promise<void>;
}

/**
 * How long a lock outlives its worker. A running job renews it (heartbeat) every third of this, so a live job is never
 * taken by another worker however long it runs, and the jobs of a killed worker are taken by another one within it.
 */
export const LOCK_LIFETIME_MS = 30_000;

type Logger = AppContext['logger'];

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
  let pool: pg.Pool | null = null;
  /** Set once close() began: no new work, no reconnects. */
  let closing: Promise<void> | undefined;
  let backend;
  if (config.agendaMongoUrl) {
    const { MongoBackend } = await import('@agendajs/mongo-backend');
    backend = new MongoBackend({ address: config.agendaMongoUrl });
  } else {
    // As on Sequelize's pool (src/db/index.ts): a server that stops answering is noticed, a connect gives up after 5 s.
    pool = new pg.Pool({ connectionString: dbUrl, max: 4, keepAlive: true, connectionTimeoutMillis: 5000 });
    // An idle client whose server went away emits 'error' on the pool; unhandled, that ends the process. The pool drops
    // the client and the next query opens a new connection, so there is nothing else to do.
    pool.on('error', (err) => logger.warn({ err: err.message }, 'job store connection lost'));
    await pool.query('SELECT 1');
    backend = new PostgresBackend({ pool, ensureSchema: false });
    keepListening(backend, logger, () => !!closing);
  }
  // A short poll keeps pickup latency well under a second even when a LISTEN/NOTIFY wake-up is missed.
  const agenda = new Agenda({
    backend,
    processEvery: 250,
    maxConcurrency: 50,
    defaultConcurrency: 1,
    defaultLockLifetime: LOCK_LIFETIME_MS,
  });
  await agenda.ready;
  /**
   * Jobs another worker took while this one waited out a database outage. Agenda writes a job's outcome by id when its
   * handler returns; for these that would record a finish over the lock and the run of the worker that has them now.
   */
  const lost = new Set<string>();
  const repository = agenda.db as unknown as { saveJobState(attrs: Job['attrs'], opts?: unknown): Promise<void> };
  const saveJobState = repository.saveJobState.bind(repository);
  repository.saveJobState = (attrs, opts) =>
    lost.delete(String(attrs._id)) ? Promise.resolve() : saveJobState(attrs, opts);
  let started = false;
  /** Jobs this process is running, each with the switch that stops its heartbeat. */
  const running = new Map<string, { done: Promise<unknown>; heartbeat: Heartbeat }>();

  async function closeOnce(graceMs: number): Promise<void> {
    // stop() takes no new jobs and unlocks the ones fetched but not started; running ones keep their locks. A database
    // that accepts connections but never answers must not hold the shutdown.
    await within(agenda.stop(false), 2000);
    if (started && running.size) {
      await within(Promise.allSettled([...running.values()].map((r) => r.done)), graceMs);
      const held = [...running.keys()];
      if (held.length) {
        logger.warn({ jobs: held.length }, 'handing running jobs back to the queue');
        // A renewal still in flight would land after the hand-back and make the next worker wait out the lock.
        await within(Promise.all([...running.values()].map((r) => r.heartbeat.stop())), 1000);
        // A started one-off job has no next run time, so Agenda would never pick it up again with its lock cleared
        // (its own unlock skips such jobs); an expired lock is what makes another worker take it at once. On MongoDB
        // the locks simply run out after LOCK_LIFETIME_MS.
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

  /**
   * Takes the job's lock back after an outage: the heartbeats failed meanwhile, so the stored lock may have run out and
   * another worker may have taken the job. False when it has (that worker runs it now).
   */
  async function relock(job: Job, heartbeat: Heartbeat): Promise<boolean> {
    if (!pool) return true; // MongoDB: no conditional update here; handlers are idempotent
    const now = new Date();
    const { rowCount } = await pool.query(
      'UPDATE agenda_jobs SET locked_at = $2 WHERE id = $1 AND (locked_at = $3 OR locked_at <= $4)',
      [String(job.attrs._id), now, heartbeat.lastLock(), new Date(now.getTime() - LOCK_LIFETIME_MS)],
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
        if (!isDatabaseUnavailable(err) || closing || (await answers())) throw err;
        logger.warn({ err: (err as Error).message, job: job.attrs.name }, 'database unavailable: the job waits for it');
        while (!closing && !(await answers())) await delay(1000);
        if (closing) throw err;
        if (!(await relock(job, heartbeat).catch(() => false))) {
          logger.warn(
            { job: job.attrs.name },
            'another worker took the job during the outage; leaving it to that worker',
          );
          lost.add(String(job.attrs._id));
          return 'lost';
        }
      }
    }
  }

  return {
    agenda,
    queue: {
      async enqueue(name, data, opts = {}) {
        const job = agenda
          .create(name, opts.uniqueKey ? { ...data, uniqueKey: opts.uniqueKey } : data)
          .priority(PRIORITY[opts.priority ?? 'NORMAL']);
        if (opts.uniqueKey) job.unique({ 'data.uniqueKey': opts.uniqueKey }, { insertOnly: true });
        await job.save();
      },
    },
    async startWorker(ctx, defs) {
      for (const d of defs) {
        const concurrency = d.concurrency(ctx);
        agenda.define(
          d.name,
          async (job) => {
            const id = String(job.attrs._id);
            const heartbeat = startHeartbeat(job, logger);
            const labels = { job: d.name, priority: d.priority };
            const timer = metrics.jobDuration.startTimer(labels);
            const done = pausedWhileDatabaseDown(
              job,
              heartbeat,
              () => d.handler(ctx, job.attrs.data as never, job as never),
              () => ctx.db.sequelize.query('SELECT 1'),
            );
            running.set(id, { done, heartbeat });
            let outcome = 'failed';
            try {
              outcome = (await done) === 'ran' ? 'succeeded' : 'lost';
            } finally {
              timer();
              metrics.jobRuns.inc({ ...labels, outcome });
              running.delete(id);
              await within(heartbeat.stop(), 1000);
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
      await agenda.start();
      started = true;
      for (const d of defs) if (d.every) await agenda.every(d.every, d.name, undefined, { skipImmediate: true });
    },
    async ping() {
      if (pool) await pool.query('SELECT 1 FROM agenda_jobs LIMIT 1');
    },
    async queueDepth() {
      if (!pool) return [];
      const { rows } = await pool.query<{ priority: number; waiting: number; running: number }>(
        `SELECT priority, count(*) FILTER (WHERE NOT running)::int AS waiting,
                count(*) FILTER (WHERE running)::int AS running
           FROM (SELECT priority, coalesce(locked_at > now() - make_interval(secs => $1), false) AS running
                   FROM agenda_jobs
                  WHERE disabled IS NOT TRUE
                    AND (next_run_at <= now() OR locked_at > now() - make_interval(secs => $1))) j
          GROUP BY priority`,
        [LOCK_LIFETIME_MS / 1000],
      );
      // every priority is reported, at 0 when nothing waits: an alert on a missing series would not fire
      return Object.entries(PRIORITY).map(([priority, value]) => {
        const row = rows.find((r) => r.priority === value);
        return { priority, waiting: row?.waiting ?? 0, running: row?.running ?? 0 };
      });
    },
    close(opts = {}) {
      closing ??= closeOnce(opts.graceMs ?? 5000);
      return closing;
    },
  };
}

interface Heartbeat {
  /** The lock time last written to the database (by Agenda's lock, or by a renewal that succeeded). */
  lastLock(): Date | undefined;
  locked(at: Date): void;
  /** Ends the renewals; resolves once one still in flight has landed, so none lands after the outcome is recorded. */
  stop(): Promise<void>;
}

/** Renews a running job's lock every third of the lock lifetime. */
function startHeartbeat(job: Job, logger: Logger): Heartbeat {
  let last = job.attrs.lockedAt;
  let beat: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    beat = job.touch().then(
      () => {
        last = job.attrs.lockedAt;
      },
      (err) => logger.warn({ err: (err as Error).message, job: job.attrs.name }, 'job heartbeat failed'),
    );
  }, LOCK_LIFETIME_MS / 3);
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
