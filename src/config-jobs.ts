import Joi from 'joi';

// The worker's part of the environment (docs/operations.md "Jobs"): its concurrency, how long finished jobs are kept,
// how long a lock outlives a dead worker, and the share of time ANALYZE after bulk writes may take. src/config.ts
// validates it with the rest in its one schema and spreads `jobsConfig(v)` into the config.

/** The worker's variables, spread into src/config.ts's schema. */
export const JOBS_ENVIRONMENT = {
  JOBS_RETENTION_HOURS: Joi.number().min(0.01).default(24),
  JOBS_FAILED_RETENTION_DAYS: Joi.number().min(0.01).default(7),
  JOBS_LOCK_SECONDS: Joi.number().integer().min(3).max(3600).default(30),
  ANALYZE_TIME_SHARE_PERCENT: Joi.number().integer().min(1).max(100).default(5),
  WORKER_URGENT_CONCURRENCY: Joi.number().integer().min(1).default(5),
  WORKER_IMPORTANT_CONCURRENCY: Joi.number().integer().min(1).default(2),
};

export interface JobsConfig {
  /** Finished one-off jobs leave agenda_jobs after this; those whose last run failed after jobsFailedRetentionMs. */
  jobsRetentionMs: number;
  jobsFailedRetentionMs: number;
  /** How long a job's lock outlives its worker (a running job renews it every third of this). */
  jobsLockMs: number;
  /** After an ANALYZE that took t, the next one of the process waits this × t (at most ANALYZE_TIME_SHARE_PERCENT). */
  analyzePauseFactor: number;
  workerUrgentConcurrency: number;
  workerImportantConcurrency: number;
}

/** The validated variables, spread into the config. */
export const jobsConfig = (v: Record<string, number>): JobsConfig => ({
  jobsRetentionMs: Math.round(v.JOBS_RETENTION_HOURS * 3_600_000),
  jobsFailedRetentionMs: Math.round(v.JOBS_FAILED_RETENTION_DAYS * 86_400_000),
  jobsLockMs: v.JOBS_LOCK_SECONDS * 1000,
  analyzePauseFactor: 100 / v.ANALYZE_TIME_SHARE_PERCENT - 1,
  workerUrgentConcurrency: v.WORKER_URGENT_CONCURRENCY,
  workerImportantConcurrency: v.WORKER_IMPORTANT_CONCURRENCY,
});
