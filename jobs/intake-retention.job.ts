import type { JobDefinition } from './job.js';

export const INTAKE_RETENTION_JOB = 'remove-old-intake';

/** The intake log keeps 30 days (docs/lead-sources.md "Intake log"): older entries are deleted once an hour. */
export const intakeRetentionJob: JobDefinition = {
  name: INTAKE_RETENTION_JOB,
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 hour',
  handler: async (ctx) => {
    const removed = await ctx.services.sources.removeOldIntake();
    if (removed) ctx.logger.info({ removed }, 'old intake log entries removed');
  },
};
