import type { Core } from './context.js';
import type { Services } from './services.js';

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
