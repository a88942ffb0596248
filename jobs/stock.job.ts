import { STOCK_COUNT_JOB } from '../src/stock/stock-count.js';
import type { JobDefinition } from './job.js';

/** IMPORTANT, like the lead import: a stock count file becomes adjustments (src/stock/stock-count.ts). */
export const importStockCountJob: JobDefinition<{ runId: number }> = {
  name: STOCK_COUNT_JOB,
  priority: 'IMPORTANT',
  concurrency: (ctx) => ctx.config.workerImportantConcurrency,
  handler: (ctx, data, _job, handedBack) => ctx.services.stock.runCount(data.runId, handedBack),
};
