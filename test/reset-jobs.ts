import fs from 'node:fs';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { RESET_JOB } from '../src/auth/password-reset.service.js';
import type { AppContext } from '../src/app-context.js';
import { getCtx } from './hooks.js';

/**
 * Runs the queued password-reset jobs as the worker would (the tests start no worker): takes them off agenda_jobs and
 * calls the job's service method for each; answers what each did.
 */
export async function runResetJobs(ctx: AppContext = getCtx(), emails?: string | string[]): Promise<string[]> {
  // `emails`: only those addresses' jobs (other tests may leave requests of their own queued)
  const only = emails === undefined ? null : [emails].flat();
  const rows = await ctx.db.sequelize.query<{ data: { email: string } }>(
    `DELETE FROM agenda_jobs WHERE name = $1 AND ($2::text[] IS NULL OR data->>'email' = ANY ($2)) RETURNING data`,
    { bind: [RESET_JOB, only], type: QueryTypes.SELECT },
  );
  const outcomes: string[] = [];
  for (const r of rows) outcomes.push(await ctx.services.passwordResets.sendReset(r.data.email));
  return outcomes;
}

/** The mails of the file outbox (no SMTP_URL) sent to `email`, oldest first. */
export function mailsTo(email: string): { subject: string; text: string; to: string }[] {
  const dir = path.join(getCtx().config.dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((m) => m.to === email);
}

/** The reset link's token in the last mail to `email`. */
export function lastResetToken(email: string): string {
  const mail = mailsTo(email).pop();
  if (!mail) throw new Error(`no mail to ${email}`);
  return /\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail.text)![1];
}
