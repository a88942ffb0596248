import client from 'prom-client';
import type { Sequelize } from 'sequelize';
import { readPoolState } from './db/index.js';
import { withTimeout } from './timers.js';

/** What `/metrics` reads at scrape time from parts built after the metrics (the pool, the job queue). */
export interface MetricSources {
  sequelize: Sequelize;
  /** Jobs waiting (due, not running) and running, per priority name. */
  queueDepth(): Promise<{ priority: string; waiting: number; running: number }[]>;
  /**
   * A scrape reads the job store; a database that does not answer must not hold the scrape (and the scraper) hanging:
   * after this long (2 s unless given) the queue series are left out.
   */
  storeReadMs?: number;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The series code counts into: requests, jobs, transfer rows, rate-limit refusals, carrier traffic. */
function counters(registers: client.Registry[]) {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new client.Counter({ name: `leadflow_${name}`, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new client.Histogram({ name: `leadflow_${name}`, help, labelNames, buckets, registers });
  return {
    httpRequests: counter('http_requests_total', 'HTTP requests by route pattern and status', [
      'method',
      'route',
      'status',
    ]),
    httpDuration: histogram(
      'http_request_duration_seconds',
      'HTTP request latency by route pattern and status',
      ['method', 'route', 'status'],
      SECONDS,
    ),
    jobRuns: counter('job_runs_total', 'Job runs by job, priority and outcome (succeeded, failed)', [
      'job',
      'priority',
      'outcome',
    ]),
    jobDuration: histogram(
      'job_duration_seconds',
      'Job run time by job and priority',
      ['job', 'priority'],
      [...SECONDS, 60, 300, 900],
    ),
    transferRows: counter(
      'transfer_rows_total',
      'Import and export rows: imported, refused (in the error report), exported',
      ['kind', 'outcome'],
    ),
    rateLimited: counter(
      'rate_limit_refusals_total',
      'Requests refused with 429 by limiter (docs/operations.md, "Limits and budgets")',
      ['limiter'],
    ),
    carrierPushes: counter('carrier_pushes_total', 'Order pushes to carriers by outcome (sent, failed)', ['outcome']),
    carrierCallbacks: counter('carrier_callbacks_total', 'Carrier status callbacks by outcome (applied, refused)', [
      'outcome',
    ]),
  };
}

/** The gauges read at scrape time from the job store and the pool, once `sources()` has them. */
function scrapeGauges(registers: client.Registry[], sources: () => MetricSources | null) {
  const queue = new client.Gauge({
    name: 'leadflow_job_queue_depth',
    help: 'Jobs due and waiting for a worker, and running, per priority (read from the job store at scrape)',
    labelNames: ['priority', 'state'] as const,
    registers,
    async collect() {
      const s = sources();
      if (!s) return;
      queue.reset();
      // no answer in time: the series are absent from this scrape (alert on absence), the rest of the page is served
      for (const row of await withTimeout(s.queueDepth(), s.storeReadMs ?? 2000).catch(() => [])) {
        queue.set({ priority: row.priority, state: 'waiting' }, row.waiting);
        queue.set({ priority: row.priority, state: 'running' }, row.running);
      }
    },
  });
  const pool = new client.Gauge({
    name: 'leadflow_db_pool_connections',
    help: 'Database pool connections of this process: in use, idle, and requests waiting for one',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const s = sources()?.sequelize;
      const p = (
        s as unknown as { connectionManager?: { pool?: { using: number; available: number; waiting: number } } }
      )?.connectionManager?.pool;
      if (!s || !p) return;
      // both pools of the process: Sequelize's (writes, transactions) and the read pool
      const r = readPoolState(s) ?? { using: 0, available: 0, waiting: 0 };
      pool.set({ state: 'used' }, p.using + r.using);
      pool.set({ state: 'idle' }, p.available + r.available);
      pool.set({ state: 'waiting' }, p.waiting + r.waiting);
    },
  });
}

/**
 * The process's Prometheus series (prom-client), one registry per application context. Every counter is here, named
 * `leadflow_*`, so the list in docs/operations.md is this file; code that counts something calls these objects.
 */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'leadflow_' });
  const registers = [registry];
  let sources: MetricSources | null = null;
  scrapeGauges(registers, () => sources);
  return {
    ...counters(registers),
    /** Connects the scrape-time gauges to the pool and the job store once they exist. */
    watch(s: MetricSources) {
      sources = s;
    },
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
