import crypto from 'node:crypto';
import Joi from 'joi';
import { Op, QueryTypes } from 'sequelize';
import { newRowAccount } from '../chosen-account.js';
import { SCOPES, type Actor, type Scope } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../errors.js';
import { accountScope, authorize } from '../policy.js';
import { idsOrNotFound } from '../query.js';
import { validate, isoDate } from '../validation.js';
import type { ApiToken } from './api-token.model.js';
import { createTokenAuthenticator, sha256, TOKENS_CHANGED } from './token-auth.js';

export { sha256 };

export const tokenCreateSchema = Joi.object({
  name: Joi.string().trim().min(1).max(100).required(),
  scopes: Joi.array()
    .items(Joi.string().valid(...SCOPES))
    .min(1)
    .unique()
    .required(),
  // the app's calendar rule (2026-02-31 is refused, not rolled over), then in the future
  expires_at: isoDate({ future: true }).allow(null),
  user_id: Joi.number().integer().positive(),
  // an admin's chosen account: the owner must be one of its users (a tenant's is their own, whatever it names)
  account_id: Joi.number().integer().positive(),
});
export interface TokenCreateInput {
  name: string;
  scopes: Scope[];
  /** An ISO 8601 date in the future (validated into a Date). */
  expires_at?: string | null;
  user_id?: number;
  account_id?: number;
}

export function tokenView(t: ApiToken) {
  return {
    id: t.id,
    account_id: t.account_id,
    name: t.name,
    scopes: t.scopes,
    created_by: t.user_id,
    last_used_at: t.last_used_at?.toISOString() ?? null,
    expires_at: t.expires_at?.toISOString() ?? null,
    created_at: t.created_at.toISOString(),
  };
}

/**
 * Revokes all the tokens or none: each must be in the actor's scope (else "not found", like an unknown id) and
 * owned by a user of the actor's rank or below (a seller cannot revoke an admin's key).
 */
async function revokeTokens(core: Core, actor: Actor, ids: number[]): Promise<void> {
  const { ApiToken, User } = core.models;
  const wanted = idsOrNotFound(ids);
  await core.db.sequelize.transaction(async (transaction) => {
    const found = await ApiToken.findAll({
      where: { id: wanted, ...accountScope(actor) },
      include: [{ model: User, attributes: ['role'], required: true }],
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (found.length !== wanted.length) throw new NotFoundError();
    for (const t of found) {
      authorize(actor, 'delete', 'token', {
        account_id: t.account_id,
        role: (t as unknown as { User: { role: string } }).User.role,
      });
    }
    await ApiToken.destroy({ where: { id: wanted }, transaction });
  });
  await core.notifications.settle(TOKENS_CHANGED);
  core.logger.info({ account_id: actor.accountId, token_ids: wanted }, 'API tokens revoked');
}

/** Generates a token "{id}|{40 random chars}"; the plain value is returned once and only its hash is stored. */
async function createToken(core: Core, actor: Actor, input: TokenCreateInput) {
  authorize(actor, 'create', 'token');
  const { ApiToken, User } = core.models;
  const v = validate<TokenCreateInput>(tokenCreateSchema, input);
  const ownerId = v.user_id ?? (actor.kind === 'system' ? undefined : actor.userId);
  const owner = ownerId ? await User.findOne({ where: { id: ownerId, ...accountScope(actor) } }) : null;
  if (!owner) throw ValidationError.single('user_id', 'The selected user_id is invalid.');
  if (v.account_id !== undefined && owner.account_id !== (await newRowAccount(core.db.sequelize, actor, v.account_id)))
    throw ValidationError.single('user_id', 'The selected user_id is not a user of the chosen account.');
  authorize(actor, 'create', 'token', { account_id: owner.account_id, role: owner.role });
  const secret = crypto.randomBytes(30).toString('base64url').slice(0, 40);
  const t = await core.db.sequelize.transaction(async (transaction) => {
    // The owner's row is the lock: two concurrent creations for one user count one after the other, so the cap holds.
    // NO KEY UPDATE leaves the foreign-key checks of other tables' inserts on this user unblocked.
    await User.findOne({
      where: { id: owner.id },
      attributes: ['id'],
      transaction,
      lock: transaction.LOCK.NO_KEY_UPDATE,
    });
    // A session that a password change ended while this request ran makes no token; one the change has yet to end
    // is locked, so the change waits for this insert and then deletes the token with the session.
    if (actor.kind === 'user' && actor.sessionId) {
      const [live] = await core.db.sequelize.query('SELECT 1 FROM sessions WHERE sid = $1 FOR KEY SHARE', {
        bind: [actor.sessionId],
        type: QueryTypes.SELECT,
        transaction,
      });
      if (!live) throw new UnauthenticatedError();
    }
    const live = await ApiToken.count({
      where: { user_id: owner.id, [Op.or]: [{ expires_at: null }, { expires_at: { [Op.gt]: new Date() } }] },
      transaction,
    });
    const cap = core.config.apiTokensPerUser;
    if (live >= cap)
      throw ValidationError.single(
        'name',
        `This user already has ${cap} API keys, the most allowed: revoke one before generating another.`,
      );
    return ApiToken.create(
      {
        account_id: owner.account_id,
        user_id: owner.id,
        name: v.name,
        scopes: v.scopes,
        expires_at: v.expires_at ?? null,
        token_hash: sha256(secret),
      },
      { transaction },
    );
  });
  core.logger.info({ account_id: owner.account_id, token_id: t.id, scopes: v.scopes }, 'API token created');
  return { ...tokenView(t), token: `${t.id}|${secret}` };
}

export function createTokenService(core: Core) {
  const { ApiToken } = core.models;
  return {
    createToken: (actor: Actor, input: TokenCreateInput) => createToken(core, actor, input),
    async listTokens(actor: Actor, accountId?: number) {
      authorize(actor, 'viewAny', 'token');
      const rows = await ApiToken.findAll({
        where: accountScope(actor, accountId),
        order: [
          ['created_at', 'DESC'],
          ['id', 'DESC'],
        ],
      });
      return rows.map(tokenView);
    },

    revokeTokens: (actor: Actor, ids: number[]) => revokeTokens(core, actor, ids),

    /** Deleting the row is the revocation; its notification empties every process's token cache (token-auth.ts). */
    async revokeToken(actor: Actor, id: number) {
      await revokeTokens(core, actor, [id]);
    },

    ...createTokenAuthenticator(core),
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
