import crypto from 'node:crypto';
import Joi from 'joi';
import { SCOPES, tokenActor, type Actor, type Scope } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { accountScope, authorize } from '../policy.js';
import { idsOrNotFound } from '../query.js';
import { validate, isoDate } from '../validation.js';
import type { ApiToken } from './api-token.model.js';

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
});
export interface TokenCreateInput {
  name: string;
  scopes: Scope[];
  /** An ISO 8601 date in the future (validated into a Date). */
  expires_at?: string | null;
  user_id?: number;
}

export function sha256(s: string): string {
  return crypto.createHash('sha256').update(s).digest('hex');
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

/** last_used_at is written at most once a minute per token, never once per request. */
const TOUCH_INTERVAL_MS = 60_000;

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
  authorize(actor, 'create', 'token', { account_id: owner.account_id, role: owner.role });
  const secret = crypto.randomBytes(30).toString('base64url').slice(0, 40);
  const t = await ApiToken.create({
    account_id: owner.account_id,
    user_id: owner.id,
    name: v.name,
    scopes: v.scopes,
    expires_at: v.expires_at ?? null,
    token_hash: sha256(secret),
  });
  core.logger.info({ account_id: owner.account_id, token_id: t.id, scopes: v.scopes }, 'API token created');
  return { ...tokenView(t), token: `${t.id}|${secret}` };
}

/** Resolves a bearer value to its actor, or null when missing, malformed, unknown, expired or revoked. */
async function authenticate(core: Core, touched: Map<number, number>, raw: string): Promise<Actor | null> {
  const { ApiToken, User } = core.models;
  const m = /^(\d{1,10})\|([A-Za-z0-9_-]{40})$/.exec(raw ?? '');
  if (!m) return null;
  const t = await ApiToken.scope('withHash').findByPk(Number(m[1]), {
    include: [{ model: User, attributes: ['id', 'name', 'role', 'active'] }],
  });
  if (!t) return null;
  const expected = Buffer.from(t.token_hash, 'hex');
  const given = Buffer.from(sha256(m[2]), 'hex');
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
  if (t.expires_at && t.expires_at.getTime() <= Date.now()) return null;
  const owner = (t as unknown as { User: { name: string; role: 'admin' | 'seller' | 'agent'; active: boolean } | null })
    .User;
  if (!owner || !owner.active) return null;
  const now = Date.now();
  if (now - (touched.get(t.id) ?? 0) > TOUCH_INTERVAL_MS) {
    touched.set(t.id, now);
    ApiToken.update({ last_used_at: new Date(now) }, { where: { id: t.id }, silent: true }).catch((err) =>
      core.logger.warn({ err }, 'token touch failed'),
    );
  }
  return tokenActor(t, owner);
}

export function createTokenService(core: Core) {
  const { ApiToken } = core.models;
  /** When each token's last_used_at was last written by this process. */
  const touched = new Map<number, number>();
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

    /** Deleting the row is the revocation: every process looks the token up per request, so it is immediate. */
    async revokeToken(actor: Actor, id: number) {
      await revokeTokens(core, actor, [id]);
    },

    authenticate: (raw: string) => authenticate(core, touched, raw),
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
