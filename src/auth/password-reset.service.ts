import crypto from 'node:crypto';
import Joi from 'joi';
import { Op } from 'sequelize';
import type { Core } from '../context.js';
import { ValidationError } from '../errors.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import { hashPassword } from '../passwords.js';
import { sha256 } from '../tokens/token.service.js';
import { validate } from '../validation.js';
import { normalizeEmail } from '../email.js';
import { TOKENS_CHANGED } from '../tokens/token-auth.js';
import { endCredentials } from './credentials.js';

export const RESET_TTL_MINUTES = 60;

/** A new password typed twice: the rule of the reset page and of the invitation page (src/auth/invitations.ts). */
export const newPasswordSchema = Joi.object({
  password: Joi.string().min(8).max(200).required(),
  password_confirmation: Joi.string()
    .valid(Joi.ref('password'))
    .required()
    .messages({ 'any.only': 'The password confirmation does not match.' }),
});

/** A secret for an emailed link (reset, invitation): the token goes in the mail, only its hash is stored. */
export function newLinkToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: sha256(token) };
}

/** The stored hash of a link's token, whatever was sent as the token. */
export const linkTokenHash = (token: unknown) => sha256(String(token));

/** The job that looks an email up and mails its reset link, off the request path (jobs/password-reset.job.ts). */
export const RESET_JOB = 'password-reset';

function resetMail(user: { email: string; name: string }, link: string) {
  return {
    to: user.email,
    subject: 'Reset your LeadFlow password',
    text:
      `Hello ${user.name},\n\nSomeone asked to reset the password of your LeadFlow login. ` +
      `Open this link within ${RESET_TTL_MINUTES} minutes to choose a new one:\n\n${link}\n\n` +
      'If it was not you, ignore this mail: your password stays as it is.\n',
    html:
      `<p>Hello ${user.name.replace(/[<>&]/g, '')},</p>` +
      `<p>Open <a href="${link}">this link</a> within ${RESET_TTL_MINUTES} minutes ` +
      'to choose a new password.</p>' +
      '<p>If it was not you, ignore this mail.</p>',
  };
}

/**
 * The job's work: a new link for an active user, unless one was sent within RESET_MAIL_INTERVAL_MINUTES (one mail
 * per email per interval, however many requests). The user row is locked so that concurrent jobs for one email
 * send one mail; a new link voids the older ones; a mail that fails rolls the link back and the job retries.
 */
async function sendReset(core: Core, mailer: Mailer, email: string): Promise<'sent' | 'unknown' | 'throttled'> {
  const { User, PasswordReset } = core.models;
  const intervalMs = core.config.resetMailIntervalMinutes * 60_000;
  return core.db.sequelize.transaction(async (transaction) => {
    const user = await User.findOne({
      where: { email: normalizeEmail(String(email)), active: true },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!user) return 'unknown';
    const recent = await PasswordReset.count({
      where: { user_id: user.id, created_at: { [Op.gt]: new Date(Date.now() - intervalMs) } },
      transaction,
    });
    if (intervalMs > 0 && recent > 0) return 'throttled';
    await PasswordReset.update({ used_at: new Date() }, { where: { user_id: user.id, used_at: null }, transaction });
    const { token, hash } = newLinkToken();
    await PasswordReset.create(
      {
        user_id: user.id,
        token_hash: hash,
        expires_at: new Date(Date.now() + RESET_TTL_MINUTES * 60_000),
      },
      { transaction },
    );
    await mailer.send(resetMail(user, `${core.config.appUrl}/reset-password/${token}`));
    return 'sent';
  });
}

/**
 * Password reset by a single-use emailed link; the answer never tells whether an email is registered, neither by its
 * words nor by its time: the request only enqueues a job (the same work for any email), and the job does the lookup,
 * the row and the mail.
 */
export function createPasswordResetService(core: Core, mailer: Mailer = createMailer(core.config)) {
  const { User, PasswordReset } = core.models;
  const isValid = async (token: string): Promise<boolean> =>
    !!(await PasswordReset.findOne({
      where: { token_hash: linkTokenHash(token), used_at: null, expires_at: { [Op.gt]: new Date() } },
    }));

  return {
    /** Queues the lookup and the mail for any string email; touches no user or reset row (same time for all). */
    async requestReset(email: unknown): Promise<void> {
      if (typeof email !== 'string' || email.length > 254 || !email.trim()) return;
      await core.queue.enqueue(RESET_JOB, { email: normalizeEmail(email) }, { priority: 'IMPORTANT' });
    },

    /** The job's work (sendReset above): at most one link per email and interval. */
    sendReset: (email: string) => sendReset(core, mailer, email),

    /** True when the token is unused and unexpired (the reset page checks before showing its form). */
    isValid,

    /** Sets the new password, spends the token and ends every session of that user, in one transaction. */
    async resetPassword(token: string, input: { password?: string; password_confirmation?: string }): Promise<void> {
      const v = validate<{ password: string }>(newPasswordSchema, input, { allowUnknown: true, stripUnknown: true });
      // a link that cannot be used costs no password hash (anyone can post to the page)
      if (!(await isValid(token)))
        throw ValidationError.single('token', 'This password reset link is invalid or has expired.');
      const hash = await hashPassword(v.password, core.config.passwordHashCost);
      await core.db.sequelize.transaction(async (transaction) => {
        const reset = await PasswordReset.findOne({
          where: { token_hash: linkTokenHash(token), used_at: null, expires_at: { [Op.gt]: new Date() } },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!reset) throw ValidationError.single('token', 'This password reset link is invalid or has expired.');
        await reset.update({ used_at: new Date() }, { transaction });
        await User.update({ password_hash: hash }, { where: { id: reset.user_id }, transaction });
        // every session (the one resetting is signed out), token and other reset link of the user
        await endCredentials(core, reset.user_id, transaction);
      });
      await core.notifications.settle(TOKENS_CHANGED);
    },
  };
}
export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
