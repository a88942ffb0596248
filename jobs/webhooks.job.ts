import { CLEANUP_JOB, DELIVER_JOB } from '../src/webhooks/webhook.service.js';
import type { JobDefinition } from './job.js';

/**
 * Fans recorded events out to their endpoints and sends the webhook deliveries that are due
 * (src/webhooks/webhook-sender.ts), in order per lead, round-robin across accounts. It runs every 10 seconds (the
 * sweep: retries, and anything a missed wake-up left behind) and at once when a write commits new events: the
 * emitting triggers NOTIFY `webhooks` at commit, and the worker brings the next run forward. Idempotent and safe on
 * several workers (a delivery is held by the worker sending it; an account's fan-out by an advisory lock).
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

/** Removes delivered and failed deliveries, and fanned-out events, older than WEBHOOK_LOG_DAYS (30), once a day. */
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
