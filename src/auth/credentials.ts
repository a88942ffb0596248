import { Op, type Transaction } from 'sequelize';
import type { Core } from '../context.js';
import { revokeUserTokens } from '../tokens/token-revocation.js';

/**
 * What a new password ends, wherever it was set (panel edit, reset link, CLI), inside the transaction that stores it:
 * every session of the user but `keepSessionId` (the one the user changed it in), every API token of the user, and
 * every reset link not yet used. A stolen session, token or mailed link must not outlive the password it came with.
 * The caller settles TOKENS_CHANGED after the commit (the token cache of every process forgets the revoked ones).
 */
export async function endCredentials(
  core: Core,
  userId: number,
  transaction: Transaction,
  keepSessionId?: string,
): Promise<{ sessions: number; tokens: number; resets: number }> {
  const { Session, PasswordReset } = core.models;
  const sessions = await Session.destroy({
    where: { user_id: userId, ...(keepSessionId ? { sid: { [Op.ne]: keepSessionId } } : {}) },
    transaction,
  });
  const tokens = await revokeUserTokens(core, userId, transaction);
  const [resets] = await PasswordReset.update(
    { used_at: new Date() },
    { where: { user_id: userId, used_at: null }, transaction },
  );
  core.logger.info({ user_id: userId, sessions, tokens, resets }, 'password changed: other credentials ended');
  return { sessions, tokens, resets };
}
