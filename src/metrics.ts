import client from 'prom-client';
import type { Sequelize } from 'sequelize';
import { withTimeout } from './timers.js';

/** What `/metrics` reads at scrape time from parts built after the metrics (the pool, the job queue). */
export interface MetricSources {
  sequelize: Sequelize;
  /** Jobs waiting (due, not running) and running, per priority name. */
  queueDepth(): Promise<{ priority: string; waiting: number; running: number }[]>;
}

/** A scrape reads the job store; a database that does not answer must not hold the scrape (and the scraper) hanging. */
const STORE_READ_MS = 2000;

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The process's Prometheus series (prom-client), one registry per application context. Every counter is here, named
 * `leadflow_*`, so the list in docs/operations.md is this file; code that counts something calls these objects.
 */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'leadflow_' });
  const registers = [registry];
  let sources: MetricSources | null = null;

  const httpRequests = new client.Counter({
    name: 'leadflow_http_requests_total',
    help: 'HTTP requests by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new client.Histogram({
    name: 'leadflow_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers,
  });
  const jobRuns = new client.Counter({
    name: 'leadflow_job_runs_total',
    help: 'Job runs by job, priority and outcome (succeeded, failed)',
    labelNames: ['job', 'priority', 'outcome'] as const,
    registers,
  });
  const jobDuration = new client.Histogram({
    name: 'leadflow_job_duration_seconds',
    help: 'Job run time by job and priority',
    labelNames: ['job', 'priority'] as const,
    buckets: [...SECONDS, 60, 300, 900],
    registers,
  });
  const queue = new client.Gauge({
    name: 'leadflow_job_queue_depth',
    help: 'Jobs due and waiting for a worker, and running, per priority (read from the job store at scrape)',
    labelNames: ['priority', 'state'] as const,
    registers,
    async collect() {
      if (!sources) return;
      queue.reset();
      // no answer in time: the series are absent from this scrape (alert on absence), the rest of the page is served
      for (const row of await withTimeout(sources.queueDepth(), STORE_READ_MS).catch(() => [])) {
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
      const p = (
        sources?.sequelize as unknown as
          { connectionManager?: { pool?: { using: number; available: number; waiting: number } } } | undefined
      )?.connectionManager?.pool;
      if (!p) return;
      pool.set({ state: 'used' }, p.using);
      pool.set({ state: 'idle' }, p.available);
      pool.set({ state: 'waiting' }, p.waiting);
    },
  });
  const transferRows = new client.Counter({
    name: 'leadflow_transfer_rows_total',
    help: 'Import and export rows: imported, refused (in the error report), exported',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const rateLimited = new client.Counter({
    name: 'leadflow_rate_limit_refusals_total',
    help: 'Requests refused with 429 by limiter (rest, callback, login)',
    labelNames: ['limiter'] as const,
    registers,
  });
  const carrierPushes = new client.Counter({
    name: 'leadflow_carrier_pushes_total',
    help: 'Order pushes to carriers by outcome (sent, failed)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const carrierCallbacks = new client.Counter({
    name: 'leadflow_carrier_callbacks_total',
    help: 'Carrier status callbacks by outcome (applied, refused)',
    labelNames: ['outcome'] as const,
    registers,
  });

  return {
    httpRequests,
    httpDuration,
    jobRuns,
    jobDuration,
    transferRows,
    rateLimited,
    carrierPushes,
    carrierCallbacks,
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
