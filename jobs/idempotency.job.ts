import type { JobDefinition } from './job.js';

export const CLEANUP_IDEMPOTENCY_JOB = 'cleanup-idempotency-keys';

/**
 * Keeps idempotency_keys bounded: every hour, keys older than 24 h (no longer answered again, docs/api.md "Idempotent
 * requests") are removed in batches. Readers ignore an expired key already, so the hour of delay changes no answer.
 */
export const cleanupIdempotencyKeysJob: JobDefinition = {
  name: CLEANUP_IDEMPOTENCY_JOB,
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 hour',
  handler: async (ctx) => {
    const removed = await ctx.services.idempotency.removeExpired();
    if (removed) ctx.logger.info({ removed }, 'expired idempotency keys removed');
  },
};
