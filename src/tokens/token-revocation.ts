import type { Transaction } from 'sequelize';
import type { Core } from '../context.js';
import { TOKENS_CHANGED } from './token-auth.js';

/**
 * Deletes every API token of one user (a password change revokes them: a token made with the old password must not
 * outlive it). The caller settles TOKENS_CHANGED after its transaction commits, so every process forgets them.
 */
export async function revokeUserTokens(core: Core, userId: number, transaction: Transaction): Promise<number> {
  return core.models.ApiToken.destroy({ where: { user_id: userId }, transaction });
}

const settling = new WeakSet<Transaction>();

/**
 * The reaction to a changed or deleted login (src/reactions.ts): once its transaction commits, every process's token
 * cache forgets what it remembered (TOKENS_CHANGED): a deleted, deactivated or demoted owner's tokens refuse at once.
 * One settle per transaction, however many logins it changed.
 */
export async function onLoginChanged(core: Core, { transaction }: { transaction: Transaction }): Promise<void> {
  if (settling.has(transaction)) return;
  settling.add(transaction);
  transaction.afterCommit(() => core.notifications.settle(TOKENS_CHANGED));
}
