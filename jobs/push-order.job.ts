import { PUSH_JOB } from '../src/orders/order.service.js';
import type { JobDefinition } from './job.js';

/** URGENT: pushes one order to its shipping company; 5 tries in all with exponential back-off. */
export const pushOrderJob: JobDefinition<{ orderId: number; requestedBy: string; userId: number | null }> = {
  name: PUSH_JOB,
  priority: 'URGENT',
  concurrency: (ctx) => ctx.config.workerUrgentConcurrency,
  retries: 4,
  handler: async (ctx, data) => {
    await ctx.services.orders.pushOne(data.orderId, data.requestedBy, data.userId);
  },
};
