import type { Transaction } from 'sequelize';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Models } from './models.js';
import type { Notifications } from './db/notifications.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { Services } from './services.js';

export const PRIORITY = { URGENT: 20, IMPORTANT: 10, NORMAL: 0 } as const;
export type Priority = keyof typeof PRIORITY;

/** What services need from the job system: they enqueue by name, never import Agenda. */
export interface JobQueue {
  enqueue(name: string, data: Record<string, unknown>, opts?: { priority?: Priority }): Promise<void>;
  /**
   * One job per item, created inside `transaction`: they exist if and only if it commits, so no crash between a commit
   * and an enqueue can leave work without its job (PostgreSQL job store; on MongoDB they are saved after the commit).
   */
  enqueueIn(
    transaction: Transaction,
    name: string,
    items: Record<string, unknown>[],
    opts?: { priority?: Priority },
  ): Promise<void>;
}

/** Everything a service factory may depend on; built once per process in app/context.ts. */
export interface Core {
  config: Readonly<Config>;
  db: Database;
  models: Models;
  logger: Logger;
  metrics: Metrics;
  queue: JobQueue;
  /** PostgreSQL LISTEN for in-process caches (the token cache); opened on the first subscription. */
  notifications: Notifications;
}

/** What the rest of the process may ask of the job system (jobs/agenda.ts implements it; app/ starts its worker). */
export interface JobControl {
  ping(): Promise<void>;
  /** Jobs due and waiting, and running, per priority name (PostgreSQL store; none are reported for MongoDB). */
  queueDepth(): Promise<{ priority: string; waiting: number; running: number }[]>;
  /**
   * Takes no new jobs, lets the running ones finish for up to `graceMs`, then hands back the locks of those still
   * running so another worker takes them at once (their handlers must be idempotent; the process is about to exit).
   */
  close(opts?: { graceMs?: number }): Promise<void>;
  /**
   * Removes finished one-off jobs older than JOBS_RETENTION_HOURS (failed ones: JOBS_FAILED_RETENTION_DAYS) from the
   * job store; repeating jobs and jobs still to run stay. Answers how many went (always 0 on MongoDB).
   */
  removeFinished(): Promise<number>;
}

/** The services and jobs of one process, as entry points (REST, dashboard, panel, jobs, CLI) see them. */
export interface AppContext extends Core {
  services: Services;
  jobs: JobControl;
  close(): Promise<void>;
}
