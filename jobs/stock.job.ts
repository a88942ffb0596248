import { STOCK_COUNT_JOB } from '../src/stock/stock-count.js';
import { STOCK_FOLLOW_CHANNEL } from '../src/stock/stock.follows.js';
import type { JobDefinition } from './job.js';

/** IMPORTANT, like the lead import: a stock count file becomes adjustments (src/stock/stock-count.ts). */
export const importStockCountJob: JobDefinition<{ runId: number }> = {
  name: STOCK_COUNT_JOB,
  priority: 'IMPORTANT',
  concurrency: (ctx) => ctx.config.workerImportantConcurrency,
  handler: (ctx, data, _job, handedBack) => ctx.services.stock.runCount(data.runId, handedBack),
};

/**
 * Moves the stock of orders that left or came back (src/stock/stock.follows.ts), woken by the write that moved them;
 * every minute too, for a wake-up missed. Safe on several workers at once: each batch takes its rows.
 */
export const followStockJob: JobDefinition = {
  name: 'follow-stock',
  priority: 'IMPORTANT',
  concurrency: () => 1,
  every: '1 minute',
  wakeOn: STOCK_FOLLOW_CHANNEL,
  handler: async (ctx) => {
    await ctx.services.stock.follow();
  },
};
