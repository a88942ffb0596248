import { Agenda, exponential } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import { PRIORITY, type JobQueue } from '../src/context.js';
import type { AppContext } from '../src/app-context.js';
import type { Config } from '../src/config.js';
import type { JobDefinition } from './job.js';

export interface JobSystem {
  agenda: Agenda;
  queue: JobQueue;
  /** Registers the handlers and starts polling; only processes with the worker role call it. */
  startWorker(ctx: AppContext, defs: JobDefinition<any>[]): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Agenda on the application's PostgreSQL (agenda_jobs is created by a migration, ensureSchema: false), or on
 * MongoDB when AGENDA_MONGO_URL is set. The database is reachable before Agenda is constructed (it connects at once).
 */
export async function createJobSystem(config: Readonly<Config>, dbUrl: string): Promise<JobSystem> {
  let pool: pg.Pool | null = null;
  let backend;
  if (config.agendaMongoUrl) {
    const { MongoBackend } = await import('@agendajs/mongo-backend');
    backend = new MongoBackend({ address: config.agendaMongoUrl });
  } else {
    pool = new pg.Pool({ connectionString: dbUrl, max: 4 });
    await pool.query('SELECT 1');
    backend = new PostgresBackend({ pool, ensureSchema: false });
  }
  // A short poll keeps pickup latency well under a second even when a LISTEN/NOTIFY wake-up is missed.
  const agenda = new Agenda({ backend, processEvery: 250, maxConcurrency: 50, defaultConcurrency: 1 });
  await agenda.ready;
  let started = false;

  return {
    agenda,
    queue: {
      async enqueue(name, data, opts = {}) {
        const job = agenda.create(name, opts.uniqueKey ? { ...data, uniqueKey: opts.uniqueKey } : data).priority(PRIORITY[opts.priority ?? 'NORMAL']);
        if (opts.uniqueKey) job.unique({ 'data.uniqueKey': opts.uniqueKey }, { insertOnly: true });
        await job.save();
      },
    },
    async startWorker(ctx, defs) {
      for (const d of defs) {
        agenda.define(d.name, (job) => d.handler(ctx, job.attrs.data as never, job as never), {
          concurrency: d.concurrency(ctx),
          ...(d.retries ? { backoff: exponential({ delay: 1000, maxRetries: d.retries, factor: 2 }) } : {}),
        });
      }
      await agenda.start();
      started = true;
      for (const d of defs) if (d.every) await agenda.every(d.every, d.name, undefined, { skipImmediate: true });
    },
    async ping() {
      if (pool) await pool.query('SELECT 1 FROM agenda_jobs LIMIT 1');
    },
    async close() {
      if (started) await agenda.drain({ timeout: 5000 }).catch(() => {});
      await agenda.stop(false).catch(() => {});
      if (pool) await pool.end();
      else await agenda.stop(true).catch(() => {});
    },
  };
}
