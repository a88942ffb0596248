import { Op } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { hashPassword, needsRehash, verifyAgainstNothing, verifyPassword } from '../passwords.js';
import { accountScope, authorize, isTenantActor } from '../policy.js';
import { idsOrNotFound, isRowId } from '../query.js';
import { likeExact } from '../like-pattern.js';
import { validate } from '../validation.js';
import { withLockTimeout } from '../lock-timeout.js';
import { fromCents, toCents } from '../money.js';
import { spendSettingsSave } from './settings-saves.repository.js';
import {
  accountCreateSchema,
  accountUpdateSchema,
  userCreateSchema,
  userUpdateSchema,
  type AccountCreateInput,
  type AccountUpdateInput,
  type UserCreateInput,
  type UserUpdateInput,
} from './account.schemas.js';
import type { Account } from './account.model.js';
import type { User } from './user.model.js';
import { normalizeEmail } from '../email.js';
import { accountZoneChanged, loginChanged } from './account.events.js';
import { setUserLanguage } from './languages.js';

export interface UserView {
  id: number;
  account_id: number;
  role: string;
  email: string;
  name: string;
  active: boolean;
  created_at: string;
}

export function userView(u: User): UserView {
  return {
    id: u.id,
    account_id: u.account_id,
    role: u.role,
    email: u.email,
    name: u.name,
    active: u.active,
    created_at: u.created_at.toISOString(),
  };
}

/** Deletes all the users or none (each in scope, of the actor's rank or below, never the actor's own login). */
async function deleteUsers(core: Core, actor: Actor, ids: number[]): Promise<void> {
  const { User } = core.models;
  const wanted = idsOrNotFound(ids);
  await core.db.sequelize.transaction(async (transaction) => {
    const found = await User.findAll({
      where: { id: wanted, ...accountScope(actor) },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (found.length !== wanted.length) throw new NotFoundError();
    for (const u of found) authorize(actor, 'delete', 'user', u);
    if (actor.kind !== 'system' && wanted.includes(actor.userId))
      throw new ConflictError('You cannot delete your own login.');
    await User.destroy({ where: { id: wanted }, transaction });
    for (const userId of wanted) {
      const change = { passwordChanged: false, emailChanged: false, deactivated: false, deleted: true };
      await loginChanged.emit(core, { transaction, userId, ...change }); // their tokens went with them
    }
  });
}

/**
 * Creates a login for an admin or the system, answering why an email cannot be used. Sellers add logins through
 * addLogin, whose answer does not tell whether an address is another account's login.
 */
async function createUser(core: Core, actor: Actor, input: UserCreateInput) {
  const { Account, User } = core.models;
  const v = validate<UserCreateInput>(userCreateSchema, input);
  authorize(actor, 'create', 'user', { account_id: v.account_id, role: v.role });
  if (isTenantActor(actor)) throw new ForbiddenError();
  if (!(await Account.findByPk(v.account_id)))
    throw ValidationError.single('account_id', 'The selected account_id is invalid.');
  if (await User.findOne({ where: { email: { [Op.iLike]: likeExact(v.email) } } })) {
    throw ValidationError.single('email', 'The email has already been taken.');
  }
  const u = await User.create({
    ...v,
    email: normalizeEmail(v.email),
    password_hash: await hashPassword(v.password, core.config.passwordHashCost),
  });
  return userView(u);
}

async function updateUser(core: Core, actor: Actor, id: number, input: UserUpdateInput) {
  const { User } = core.models;
  const v = validate<UserUpdateInput>(userUpdateSchema, input);
  const u = await User.findOne({ where: { id, ...accountScope(actor) } });
  if (!u) throw new NotFoundError();
  // Both the stored role and the new one: a seller may neither demote an admin nor promote anyone to admin.
  authorize(actor, 'update', 'user', { account_id: u.account_id, role: u.role });
  if (v.role) authorize(actor, 'update', 'user', { account_id: u.account_id, role: v.role });
  // Whether an address is free would tell a seller that it is another tenant's login; a tenant cannot change a login's
  // email at all (the same answer for every address), and adds a login with the new address instead (add-login.ts).
  if (v.email && v.email !== u.email && isTenantActor(actor))
    throw ValidationError.single(
      'email',
      "Only an admin can change a login's email: add a login with the new address.",
    );
  if (
    v.email &&
    v.email !== u.email &&
    (await User.findOne({ where: { email: { [Op.iLike]: likeExact(v.email) }, id: { [Op.ne]: id } } }))
  ) {
    throw ValidationError.single('email', 'The email has already been taken.');
  }
  const { password, ...rest } = v;
  const hash = password ? await hashPassword(password, core.config.passwordHashCost) : null;
  const emailChanged = !!v.email && v.email !== u.email;
  await core.db.sequelize.transaction(async (transaction) => {
    await u.update({ ...rest, ...(hash ? { password_hash: hash } : {}) }, { transaction });
    // a new password ends the user's other credentials, a new address or a switched-off login its reset links, a
    // deactivated agent's lead goes back to the queue, and a changed owner's tokens refuse at once (src/reactions.ts)
    await loginChanged.emit(core, {
      transaction,
      userId: id,
      passwordChanged: !!hash,
      emailChanged,
      deactivated: v.active === false,
      deleted: false,
      keepSessionId: ownSession(actor, id),
    });
  });
  return userView(u);
}

/** The acting dashboard session when the actor changes its own login (that session stays signed in). */
const ownSession = (actor: Actor, userId: number) =>
  actor.kind === 'user' && actor.userId === userId ? actor.sessionId : undefined;

/**
 * Password check for login; returns the user or null, taking the same time for unknown emails. A hash made with
 * other parameters than new ones get is replaced at this login (the only moment the password is known).
 */
async function verifyCredentials(core: Core, email: string, password: string): Promise<User | null> {
  const { User } = core.models;
  const cost = core.config.passwordHashCost;
  const u = await User.scope('withPassword').findOne({
    where: { email: normalizeEmail(String(email)), active: true },
  });
  if (!u) {
    await verifyAgainstNothing(password, cost);
    return null;
  }
  if (!(await verifyPassword(u.password_hash, password))) return null;
  if (needsRehash(u.password_hash, cost)) {
    const rehashed = await hashPassword(password, cost);
    // only if nobody changed the password meanwhile
    await User.update(
      { password_hash: rehashed },
      { where: { id: u.id, password_hash: u.password_hash }, silent: true },
    );
  }
  return u;
}

const accountView = (a: Account) => ({
  id: a.id,
  name: a.name,
  phone_country: a.phone_country,
  time_zone: a.time_zone,
  risk_min_returns: a.risk_min_returns,
  risk_min_orders: a.risk_min_orders,
  risk_min_delivery_rate: a.risk_min_delivery_rate,
  stock_policy: a.stock_policy,
  currency: a.currency,
  buyer_delivery_fee: fromCents(a.buyer_delivery_fee),
  created_at: a.created_at.toISOString(),
});

/**
 * Renames an account, changes the country its national phone numbers are read in, its time zone, or the thresholds of
 * its customers' risk rule (sellers their own account, admins any; a threshold applies at the next read of a
 * customer record). Phones already stored keep their E.164 form: a new country applies to what is written from now
 * on. A new zone has the account's KPI days recomputed out of band (saveZone). A person saves an account's settings
 * at most ACCOUNT_SETTINGS_PER_MINUTE times a minute, whoever saves (429 past it, before any work).
 */
async function updateAccount(core: Core, actor: Actor, id: number, input: AccountUpdateInput) {
  const { Account } = core.models;
  const typed = validate<AccountUpdateInput>(accountUpdateSchema, input);
  const fee = typed.buyer_delivery_fee;
  const v = fee === undefined ? typed : { ...typed, buyer_delivery_fee: toCents(fee) }; // kept in cents
  const a = isRowId(id) ? await Account.findOne({ where: { [Op.and]: [{ id }, idScope(actor)] } }) : null;
  if (!a) throw new NotFoundError();
  authorize(actor, 'update', 'account', { account_id: a.id });
  // Names are not unique across accounts (two shops may both be "Acme"); only the back office, which sees every
  // account, is stopped from giving two accounts one name. A seller is never told another account's name.
  if (
    !isTenantActor(actor) &&
    v.name &&
    (await Account.findOne({ where: { name: { [Op.iLike]: likeExact(v.name) }, id: { [Op.ne]: id } } }))
  ) {
    throw ValidationError.single('name', 'The name has already been taken.');
  }
  if (actor.kind !== 'system') {
    await spendSettingsSave(core.db.sequelize, a.id, core.config.accountSettingsPerMinute, () =>
      core.metrics.rateLimited.inc({ limiter: 'settings' }),
    );
  }
  if (v.time_zone && v.time_zone !== a.time_zone) await saveZone(core, a, v);
  else await a.update(v);
  return accountView(a);
}

/**
 * Saves an account with a new zone and asks for its KPI days to be recomputed: the `rebuild-kpi-zones` job does it out
 * of band within a second or so (docs/decisions.md, "Time zones"), once however many changes were made meanwhile. The
 * account's row is held FOR UPDATE for the few milliseconds this takes, so a lead write of the account either finishes
 * before or marks days of the new zone (migration 20261206000000). No wait for the row is longer than
 * SETTINGS_LOCK_TIMEOUT_MS: a save that meets a long write of the account (an import) is refused, to be retried.
 */
const SETTINGS_LOCK_TIMEOUT_MS = 2000;
export const BUSY_ACCOUNT = 'The account is being written to (another save or an import); try again in a moment.';

async function saveZone(core: Core, a: Account, v: AccountUpdateInput): Promise<void> {
  await core.db.sequelize.transaction(async (transaction) => {
    await withLockTimeout(core.db.sequelize, transaction, SETTINGS_LOCK_TIMEOUT_MS, BUSY_ACCOUNT, () =>
      a.reload({ transaction, lock: transaction.LOCK.UPDATE }),
    );
    await a.update(v, { transaction });
    await accountZoneChanged.emit(core, { transaction, accountId: a.id });
  });
}

/** The account filter on the accounts table itself (its `id` is the account). */
const idScope = (actor: Actor) => {
  const scoped = accountScope(actor).account_id;
  return scoped ? { id: scoped } : {};
};

export function createAccountService(core: Core) {
  const { Account, User } = core.models;

  return {
    createUser: (actor: Actor, input: UserCreateInput) => createUser(core, actor, input),
    updateUser: (actor: Actor, id: number, input: UserUpdateInput) => updateUser(core, actor, id, input),
    verifyCredentials: (email: string, password: string) => verifyCredentials(core, email, password),
    /** The signed-in user's own panel language (null: the browser's); see src/accounts/languages.ts. */
    setLanguage: (actor: Actor, language: unknown) => setUserLanguage(core, actor, language),
    /** Creates a tenant. Admin (or system) only. */
    async createAccount(actor: Actor, input: AccountCreateInput) {
      authorize(actor, 'create', 'account');
      const v = validate<AccountCreateInput>(accountCreateSchema, input);
      if (await Account.findOne({ where: { name: { [Op.iLike]: likeExact(v.name) } } })) {
        throw ValidationError.single('name', 'The name has already been taken.');
      }
      const a = await Account.create({
        name: v.name,
        phone_country: v.phone_country ?? core.config.defaultCountry,
        time_zone: v.time_zone, // absent: the phone country's zone (account.model.ts)
      });
      return accountView(a);
    },
    updateAccount: (actor: Actor, id: number, input: AccountUpdateInput) => updateAccount(core, actor, id, input),

    async listAccounts(actor: Actor) {
      authorize(actor, 'viewAny', 'account');
      const where = accountScope(actor).account_id ? { id: accountScope(actor).account_id } : {};
      const rows = await Account.findAll({ where, order: [['id', 'ASC']] });
      const counts = (await User.count({ group: ['account_id'] })) as unknown as {
        account_id: number;
        count: number;
      }[];
      const byAccount = new Map(counts.map((c) => [c.account_id, Number(c.count)]));
      return rows.map((a) => ({
        id: a.id,
        name: a.name,
        users: byAccount.get(a.id) ?? 0,
        phone_country: a.phone_country,
        time_zone: a.time_zone,
        created_at: a.created_at.toISOString(),
      }));
    },

    async listUsers(actor: Actor, accountId?: number) {
      authorize(actor, 'viewAny', 'user');
      const rows = await User.findAll({ where: accountScope(actor, accountId), order: [['id', 'ASC']] });
      return rows.map(userView);
    },

    deleteUsers: (actor: Actor, ids: number[]) => deleteUsers(core, actor, ids),

    async deleteUser(actor: Actor, id: number) {
      await deleteUsers(core, actor, [id]);
    },

    async findUserByEmail(email: string) {
      return User.findOne({ where: { email: normalizeEmail(String(email)) } });
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;
