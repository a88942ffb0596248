import type { JobDefinition } from './job.js';

/**
 * Folds the writes of the last minute into the KPI dashboard's daily rollup (src/stats/kpi.service.ts): the days
 * they touched are recomputed. Idempotent, and safe on several workers at once (the fold takes an advisory lock).
 */
export const foldKpiJob: JobDefinition = {
  name: 'fold-kpi',
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 minute',
  handler: async (ctx) => {
    await ctx.services.kpi.fold();
  },
};
