import { CLEANUP_JOB, EXPORT_JOB } from '../src/transfers/export.service.js';
import { IMPORT_JOB } from '../src/transfers/import.service.js';
import type { JobDefinition } from './job.js';

/** IMPORTANT: spreadsheet imports and exports run in their own slots, never in the URGENT ones. */
export const importLeadsJob: JobDefinition<{ runId: number }> = {
  name: IMPORT_JOB,
  priority: 'IMPORTANT',
  concurrency: (ctx) => ctx.config.workerImportantConcurrency,
  handler: (ctx, data, _job, handedBack) => ctx.services.imports.run(data.runId, handedBack),
};

export const exportLeadsJob: JobDefinition<{ runId: number }> = {
  name: EXPORT_JOB,
  priority: 'IMPORTANT',
  concurrency: (ctx) => ctx.config.workerImportantConcurrency,
  handler: (ctx, data, _job, handedBack) => ctx.services.exports.run(data.runId, handedBack),
};

export const cleanupExportsJob: JobDefinition = {
  name: CLEANUP_JOB,
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 day',
  handler: async (ctx) => {
    await ctx.services.exports.removeExpired();
  },
};
