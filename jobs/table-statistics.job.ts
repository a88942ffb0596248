import { ANALYZE_CHANNEL } from '../src/db/table-statistics.js';
import type { JobDefinition } from './job.js';

/**
 * Analyzes the lead and order tables that bulk writes changed by 10 % or more (src/db/table-statistics.ts): at once
 * when a request of 1,000 rows or more commits (it notifies `analyze`), and every minute for smaller writes.
 */
export const analyzeTablesJob: JobDefinition = {
  name: 'analyze-tables',
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 minute',
  wakeOn: ANALYZE_CHANNEL,
  handler: async (ctx) => {
    await ctx.services.tableStatistics.analyzeChanged();
  },
};
