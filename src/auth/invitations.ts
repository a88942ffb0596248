import { Op, UniqueConstraintError, type Transaction } from 'sequelize';
import { userActor, type Actor } from '../actor.js';
import { addLogin, type InvitationInput } from './add-login.js';
import { can } from '../policy.js';
import { linkTokenHash, newPasswordSchema } from './password-reset.service.js';
import type { Core } from '../context.js';
import { GoneError } from '../errors.js';
import { hashPassword } from '../passwords.js';
import { likeExact } from '../like-pattern.js';
import { validate } from '../validation.js';

export const INVITATION_GONE = 'This invitation link is invalid, used or has expired.';
export const INVITATION_TAKEN =
  'This address already has a LeadFlow login: sign in with it, or ask for an invitation to another address.';

/** What the invitation page shows before the password form. */
export interface InvitationView {
  email: string;
  account_name: string;
}

const usable = (token: unknown) => ({
  token_hash: linkTokenHash(token),
  accepted_at: null,
  void_at: null,
  expires_at: { [Op.gt]: new Date() },
});

/** The invitation of a link that can still be accepted, or null (the page answers 410). */
export async function findInvitation(core: Core, token: unknown): Promise<InvitationView | null> {
  const { LoginInvitation, Account } = core.models;
  const inv = await LoginInvitation.findOne({ where: usable(token) });
  const account = inv && (await Account.findByPk(inv.account_id));
  return inv && account ? { email: inv.email, account_name: account.name } : null;
}

/**
 * True when the invitation's sender may still make such a login: still active, of the account, of the invited rank or
 * above (policy's rule). A seller demoted, deactivated or deleted since cannot come back through a link they sent.
 */
async function inviterMayStill(
  core: Core,
  inv: { invited_by: number | null; account_id: number; role: string },
  transaction: Transaction,
): Promise<boolean> {
  if (inv.invited_by === null) return false;
  const inviter = await core.models.User.findByPk(inv.invited_by, { transaction });
  if (!inviter || !inviter.active || inviter.account_id !== inv.account_id) return false;
  return can(userActor(inviter), 'create', 'user', { account_id: inv.account_id, role: inv.role });
}

/**
 * Accepts an invitation with the password its owner chose (the reset page's rules), in one transaction on the locked
 * invitation: a free address becomes a login of the account with the invited role and name; an address that became
 * a login anywhere meanwhile voids the invitation and changes nothing else ('taken': only the mailbox owner, who
 * opened the link, is told); so does one whose sender may no longer make that login ('withdrawn'). A used, void or
 * expired link is GoneError.
 */
export async function acceptInvitation(
  core: Core,
  token: unknown,
  input: { password?: unknown; password_confirmation?: unknown },
): Promise<'accepted' | 'taken' | 'withdrawn'> {
  const { LoginInvitation, User } = core.models;
  const v = validate<{ password: string }>(newPasswordSchema, input, { allowUnknown: true, stripUnknown: true });
  // a link that cannot be accepted costs no password hash (anyone can post to the page)
  if (!(await LoginInvitation.findOne({ where: usable(token) }))) throw new GoneError(INVITATION_GONE);
  const passwordHash = await hashPassword(v.password, core.config.passwordHashCost);
  const voidIt = (id: number) => LoginInvitation.update({ void_at: new Date() }, { where: { id, void_at: null } });
  let invitationId = 0;
  try {
    return await core.db.sequelize.transaction(async (transaction) => {
      const inv = await LoginInvitation.findOne({ where: usable(token), transaction, lock: transaction.LOCK.UPDATE });
      if (!inv) throw new GoneError(INVITATION_GONE);
      invitationId = inv.id;
      if (!(await inviterMayStill(core, inv, transaction))) {
        await inv.update({ void_at: new Date() }, { transaction });
        return 'withdrawn';
      }
      if (await User.findOne({ where: { email: { [Op.iLike]: likeExact(inv.email) } }, transaction })) {
        await inv.update({ void_at: new Date() }, { transaction });
        return 'taken';
      }
      const { account_id, email, name, role } = inv;
      await User.create({ account_id, email, name, role, password_hash: passwordHash }, { transaction });
      await inv.update({ accepted_at: new Date() }, { transaction });
      return 'accepted';
    });
  } catch (err) {
    // the address became a login between the check and the insert (another acceptance or an admin)
    if (!(err instanceof UniqueConstraintError) || !invitationId) throw err;
    await voidIt(invitationId);
    return 'taken';
  }
}

/** Invitations: a seller adds a login (the panel's Users), its owner accepts it (admin/routes/invitation.routes.ts). */
export function createInvitationService(core: Core) {
  return {
    /** A seller's add-login: the same invitation mail whether the email is free or taken (add-login.ts). */
    addLogin: (actor: Actor, input: InvitationInput) => addLogin(core, actor, input),
    find: (token: unknown) => findInvitation(core, token),
    accept: (token: unknown, input: { password?: unknown; password_confirmation?: unknown }) =>
      acceptInvitation(core, token, input),
  };
}
