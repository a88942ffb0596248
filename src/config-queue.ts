import Joi from 'joi';

// The agent work queue's part of the environment (docs/operations.md "Agent work queue"). src/config.ts validates it
// with the rest in its one schema and exports it as `config.queue`; it lives here to keep that module readable.

/** The work queue's variables, spread into src/config.ts's schema. */
export const QUEUE_ENVIRONMENT = {
  QUEUE_CLAIM_SECONDS: Joi.number().integer().min(1).max(86_400).default(300),
  // 0: no fresh window, new leads come after the due call-backs, oldest first
  QUEUE_FRESH_SECONDS: Joi.number().integer().min(0).max(86_400).default(900),
  // at least a minute: a no_answer lead must not come straight back to the agent who just set it
  QUEUE_RETRY_SECONDS: Joi.number().integer().min(60).max(2_592_000).default(7200),
};

/** The work queue's times, in seconds (src/queue/). */
export interface QueueConfig {
  /** How long `next` keeps a lead for the agent who took it; a lead they give back stays away from them as long. */
  claimSeconds: number;
  /** A `new` lead this young is served before everything else (0: no fresh window). */
  freshSeconds: number;
  /** A `no_answer` lead comes back to the queue this long after its last change. */
  retrySeconds: number;
}

/** The validated variables as `config.queue`. */
export const queueConfig = (v: Record<string, number>): QueueConfig => ({
  claimSeconds: v.QUEUE_CLAIM_SECONDS,
  freshSeconds: v.QUEUE_FRESH_SECONDS,
  retrySeconds: v.QUEUE_RETRY_SECONDS,
});
