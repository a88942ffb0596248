import { RESET_JOB } from '../src/auth/password-reset.service.js';
import type { JobDefinition } from './job.js';

/**
 * IMPORTANT: looks up the email of a reset request and mails its link (src/auth/password-reset.service.ts); done here
 * so that the request answers in the same time for known and unknown emails. A mail server that fails is retried.
 */
export const passwordResetJob: JobDefinition<{ email: string }> = {
  name: RESET_JOB,
  priority: 'IMPORTANT',
  concurrency: () => 2,
  retries: 3,
  handler: async (ctx, data) => {
    await ctx.services.passwordResets.sendReset(data.email);
  },
};
