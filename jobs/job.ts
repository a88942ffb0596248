import type { Job } from 'agenda';
import type { Priority } from '../src/context.js';
import type { AppContext } from '../src/app-context.js';

/** A job kind: a thin adapter that calls a service. Handlers must be idempotent (a job may run twice). */
export interface JobDefinition<D = Record<string, unknown>> {
  name: string;
  priority: Priority;
  /** Concurrency of this job kind in one worker; URGENT kinds keep their own slots so they never wait. */
  concurrency: (ctx: AppContext) => number;
  /**
   * `handedBack` aborts when a stopping worker hands the job back to the queue (docs/operations.md): the handler may
   * stop at its next safe point; its outcome is not recorded and another worker runs the job again.
   */
  handler: (ctx: AppContext, data: D, job: Job<D>, handedBack?: AbortSignal) => Promise<void>;
  /** Retries with exponential back-off (Agenda's own backoff) when the handler throws. */
  retries?: number;
  /** Repeating jobs (e.g. daily clean-up) are scheduled by the worker at start. */
  every?: string;
  /**
   * A NOTIFY channel that brings the next run of this repeating job forward (a write committed work for it), so it
   * need not wait for `every`.
   */
  wakeOn?: string;
}
