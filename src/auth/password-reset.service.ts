import crypto from 'node:crypto';
import Joi from 'joi';
import { Op } from 'sequelize';
import type { Core } from '../context.js';
import { ValidationError } from '../errors.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import { hashPassword } from '../passwords.js';
import { sha256 } from '../tokens/token.service.js';
import { validate } from '../validation.js';
import { normalizeEmail } from '../accounts/email.js';

export const RESET_TTL_MINUTES = 60;

const resetSchema = Joi.object({
  password: Joi.string().min(8).max(200).required(),
  password_confirmation: Joi.string()
    .valid(Joi.ref('password'))
    .required()
    .messages({ 'any.only': 'The password confirmation does not match.' }),
});

/** Password reset by a single-use emailed link; the answer never tells whether an email is registered. */
export function createPasswordResetService(core: Core, mailer: Mailer = createMailer(core.config)) {
  const { User, PasswordReset, Session } = core.models;

  return {
    /** Sends a reset link when the email belongs to an active user; does nothing visible otherwise. */
    async requestReset(email: unknown): Promise<void> {
      if (typeof email !== 'string' || email.length > 254) return;
      const user = await User.findOne({ where: { email: normalizeEmail(email), active: true } });
      if (!user) return;
      const token = crypto.randomBytes(32).toString('base64url');
      await PasswordReset.create({
        user_id: user.id,
        token_hash: sha256(token),
        expires_at: new Date(Date.now() + RESET_TTL_MINUTES * 60_000),
      });
      const link = `${core.config.appUrl}/reset-password/${token}`;
      // A mail server that fails is logged, not answered: an error only for registered emails would tell them apart.
      await mailer
        .send({
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
        })
        .catch((err) => core.logger.error({ err, user_id: user.id }, 'password reset mail not sent'));
    },

    /** True when the token is unused and unexpired (the reset page checks before showing its form). */
    async isValid(token: string): Promise<boolean> {
      return !!(await PasswordReset.findOne({
        where: { token_hash: sha256(String(token)), used_at: null, expires_at: { [Op.gt]: new Date() } },
      }));
    },

    /** Sets the new password, spends the token and ends every session of that user, in one transaction. */
    async resetPassword(token: string, input: { password?: string; password_confirmation?: string }): Promise<void> {
      const v = validate<{ password: string }>(resetSchema, input, { allowUnknown: true, stripUnknown: true });
      const hash = await hashPassword(v.password, core.config.passwordHashCost);
      await core.db.sequelize.transaction(async (transaction) => {
        const reset = await PasswordReset.findOne({
          where: { token_hash: sha256(String(token)), used_at: null, expires_at: { [Op.gt]: new Date() } },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!reset) throw ValidationError.single('token', 'This password reset link is invalid or has expired.');
        await reset.update({ used_at: new Date() }, { transaction });
        await User.update({ password_hash: hash }, { where: { id: reset.user_id }, transaction });
        await Session.destroy({ where: { user_id: reset.user_id }, transaction });
      });
    },
  };
}
export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
