import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { Core } from '../context.js';
import type { LoginChange } from '../accounts/account.events.js';
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
  // the mark first: the user's row stays locked until the commit, so a login checking it waits (credentialsCurrent)
  await core.db.sequelize.query('UPDATE users SET credentials_changed_at = clock_timestamp() WHERE id = $1', {
    bind: [userId],
    transaction,
  });
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

/**
 * Whether the password a login checked is still the user's, once its session is saved: false when a change committed
 * since `seen` (the mark read with the password hash), or is being committed now (the row's lock is waited for). A
 * change that commits after this answer deletes the saved session itself (endCredentials), so no session made with
 * an old password survives, whatever the order of the two.
 */
export async function credentialsCurrent(core: Core, userId: number, seen: Date | null): Promise<boolean> {
  const [row] = await core.db.sequelize.query<{ at: Date | null }>(
    'SELECT credentials_changed_at AS at FROM users WHERE id = $1 AND active FOR SHARE',
    { bind: [userId], type: QueryTypes.SELECT },
  );
  return !!row && (row.at?.getTime() ?? null) === (seen?.getTime() ?? null);
}

/** The sign-in's check of a saved session (admin/routes/auth.routes.ts). */
export function createCredentialService(core: Core) {
  return {
    /** After a login saved its session: the password it checked is still the user's. */
    current: (u: { id: number; credentials_changed_at?: Date | null }) =>
      credentialsCurrent(core, u.id, u.credentials_changed_at ?? null),
  };
}

/**
 * The reaction to a changed login (src/reactions.ts), in its transaction: a new password ends the user's other
 * credentials; a new address or a login switched off ends the reset links mailed before, which must not set a
 * password any more.
 */
export async function onLoginChanged(core: Core, change: LoginChange): Promise<void> {
  const { transaction, userId } = change;
  if (change.passwordChanged) await endCredentials(core, userId, transaction, change.keepSessionId);
  else if (change.emailChanged || change.deactivated)
    await core.models.PasswordReset.update(
      { used_at: new Date() },
      { where: { user_id: userId, used_at: null }, transaction },
    );
}
