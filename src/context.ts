import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Models } from './db/models.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

export const PRIORITY = { URGENT: 20, IMPORTANT: 10, NORMAL: 0 } as const;
export type Priority = keyof typeof PRIORITY;

/** What services need from the job system: they enqueue by name, never import Agenda. */
export interface JobQueue {
  enqueue(name: string, data: Record<string, unknown>, opts?: { priority?: Priority; uniqueKey?: string }): Promise<void>;
}

/** Everything a service factory may depend on; built once per process in src/app-context.ts. */
export interface Core {
  config: Readonly<Config>;
  db: Database;
  models: Models;
  logger: Logger;
  metrics: Metrics;
  queue: JobQueue;
}
