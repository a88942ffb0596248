import type { Transaction } from 'sequelize';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Notifications } from './db/notifications.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/**
 * Every model of every domain, bound to the process's Sequelize instance. The kernel does not import the registry
 * (src/models.ts, on the top floor, imports every domain): the registry fills this interface in by declaration
 * merging, so `core.models.Lead` is typed while no file of a lower floor imports a higher one, types included.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Models {}

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
