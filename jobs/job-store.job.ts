import type { JobDefinition } from './job.js';

export const CLEANUP_JOBS_JOB = 'cleanup-jobs';

/**
 * Keeps agenda_jobs bounded: every minute, finished one-off jobs (pushes, imports, exports, wake-ups) older than
 * JOBS_RETENTION_HOURS (24), or JOBS_FAILED_RETENTION_DAYS (7) when their last run failed, are removed in batches.
 * Cheap when there is nothing to remove (an index of finished jobs by finish time).
 */
export const cleanupJobsJob: JobDefinition = {
  name: CLEANUP_JOBS_JOB,
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 minute',
  handler: async (ctx) => {
    const removed = await ctx.jobs.removeFinished();
    if (removed) ctx.logger.info({ removed }, 'finished jobs removed');
  },
};
