import { CLEANUP_JOB, DELIVER_JOB } from '../src/webhooks/webhook.service.js';
import type { JobDefinition } from './job.js';

/**
 * Sends the webhook deliveries that are due (src/webhooks/webhook-sender.ts), in order per lead. It runs every
 * 10 seconds (the sweep: retries, and anything a missed wake-up left behind) and at once when a write commits new
 * deliveries: the emitting triggers NOTIFY `webhooks` at commit, and the worker brings the next run forward.
 * Idempotent and safe on several workers (a delivery is held by the worker sending it).
 */
export const deliverWebhooksJob: JobDefinition = {
  name: DELIVER_JOB,
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '10 seconds',
  wakeOn: 'webhooks',
  handler: async (ctx) => {
    await ctx.services.webhooks.deliverDue();
  },
};

/** Removes delivered and failed deliveries older than WEBHOOK_LOG_DAYS (30) from the log, once a day. */
export const cleanupWebhooksJob: JobDefinition = {
  name: CLEANUP_JOB,
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 day',
  handler: async (ctx) => {
    const removed = await ctx.services.webhooks.removeOldDeliveries();
    if (removed) ctx.logger.info({ removed }, 'old webhook deliveries removed');
  },
};
