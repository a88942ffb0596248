import type { Transaction } from 'sequelize';
import type { Core } from '../context.js';

/**
 * Deletes every API token of one user (a password change revokes them: a token made with the old password must not
 * outlive it). The caller settles TOKENS_CHANGED after its transaction commits, so every process forgets them.
 */
export async function revokeUserTokens(core: Core, userId: number, transaction: Transaction): Promise<number> {
  return core.models.ApiToken.destroy({ where: { user_id: userId }, transaction });
}
