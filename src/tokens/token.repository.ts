import type { Sequelize } from 'sequelize';
import type { Role } from '../actor.js';
import { select } from '../query.js';

/** A token row with what its actor is built from: its owner's name, role and whether the owner may still log in. */
export interface TokenWithOwner {
  id: number;
  user_id: number;
  account_id: number;
  name: string;
  scopes: string[];
  token_hash: string;
  expires_at: Date | null;
  owner_name: string;
  owner_role: Role;
  owner_active: boolean;
}

/** The token `id` and its owner, in one statement; none when either is gone or the owner moved to another account. */
export async function findTokenWithOwner(sequelize: Sequelize, id: number): Promise<TokenWithOwner | undefined> {
  const [row] = await select<TokenWithOwner>(
    sequelize,
    `SELECT t.id, t.user_id, t.account_id, t.name, t.scopes, t.token_hash, t.expires_at,
            u.name AS owner_name, u.role AS owner_role, u.active AS owner_active
       FROM api_tokens t JOIN users u ON u.id = t.user_id AND u.account_id = t.account_id
      WHERE t.id = $1`,
    [id],
  );
  return row;
}

/** Sets last_used_at only (no updated_at, and no column the token-change notification watches). */
export async function touchToken(sequelize: Sequelize, id: number, at: Date): Promise<void> {
  await sequelize.query('UPDATE api_tokens SET last_used_at = $2 WHERE id = $1', { bind: [id, at] });
}
