import type { JobDefinition } from './job.js';

/** Folds the count changes appended by every write (src/row-counts.ts), so a list's total reads a few rows. */
export const foldRowCountsJob: JobDefinition = {
  name: 'fold-row-counts',
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 minute',
  handler: async (ctx) => {
    await ctx.services.rowCounts.fold();
  },
};

/** Recounts every kept count once a day; a difference is logged and the counts are rebuilt. */
export const checkRowCountsJob: JobDefinition = {
  name: 'check-row-counts',
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 day',
  handler: async (ctx) => {
    await ctx.services.rowCounts.check({ repair: true });
  },
};
