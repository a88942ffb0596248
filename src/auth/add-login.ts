import Joi from 'joi';
import { Op } from 'sequelize';
import type { Actor } from '../actor.js';
import { newLinkToken } from './password-reset.service.js';
import type { Core } from '../context.js';
import { ValidationError } from '../errors.js';
import { createMailer, type Mail, type Mailer } from '../mail/mailer.js';
import { authorize, isTenantActor } from '../policy.js';
import { likeExact } from '../like-pattern.js';
import { validate } from '../validation.js';
import { userCreateSchema, type UserCreateInput } from '../accounts/account.schemas.js';
import { normalizeEmail } from '../email.js';

/** How long an invitation link works. */
export const INVITATION_TTL_DAYS = 7;

/** What a tenant's "add a login" answers, whether the address was free or is the login of another account. */
export interface AddLoginAnswer {
  email: string;
  message: string;
}

/** The invitation's fields: a seller never chooses the password (the invitee does), so one sent is dropped. */
export type InvitationInput = Omit<UserCreateInput, 'password'> & { password?: string };
const invitationSchema = userCreateSchema.keys({ password: Joi.any().strip() });

export const addLoginMessage = (email: string) =>
  `An invitation was mailed to ${email}. The login is listed under Users once its owner accepts it.`;

function invitationMail(to: string, accountName: string, link: string): Mail {
  return {
    to,
    subject: `You are invited to ${accountName} on LeadFlow`,
    text:
      `${accountName} invited this address to a LeadFlow login. Open this link within ${INVITATION_TTL_DAYS} days ` +
      `to choose your password:\n\n${link}\n\nIf the address already has a LeadFlow login, the link says so and ` +
      'changes nothing. If you did not expect this mail, ignore it.\n',
  };
}

/**
 * An invitation not accepted and not expired. A void one counts too: it was voided when its address turned out to be
 * another tenant's login (or its sender lost the right), and a fresh invitation accepted where a void one was refused
 * would tell the seller which.
 */
const pending = () => ({ accepted_at: null, expires_at: { [Op.gt]: new Date() } });

/** Invitations an account may have pending, and send in a day: the mails carry a name the seller chose. */
export const INVITATIONS_PENDING_PER_ACCOUNT = 20;
export const INVITATIONS_PER_ACCOUNT_PER_DAY = 50;

/** Refuses a new invitation past the account's caps (its own rows only: the same for any address). */
async function withinInvitationCaps(core: Core, accountId: number): Promise<void> {
  const { LoginInvitation } = core.models;
  const [open, today] = await Promise.all([
    LoginInvitation.count({ where: { account_id: accountId, ...pending() } }),
    LoginInvitation.count({
      where: { account_id: accountId, created_at: { [Op.gt]: new Date(Date.now() - 86_400_000) } },
    }),
  ]);
  if (open >= INVITATIONS_PENDING_PER_ACCOUNT)
    throw ValidationError.single(
      'email',
      `The account has ${INVITATIONS_PENDING_PER_ACCOUNT} invitations pending, the most allowed: wait until they are ` +
        'accepted or expire.',
    );
  if (today >= INVITATIONS_PER_ACCOUNT_PER_DAY)
    throw ValidationError.single(
      'email',
      `The account has sent ${INVITATIONS_PER_ACCOUNT_PER_DAY} invitations in the last 24 hours, the most allowed.`,
    );
}

/**
 * A seller's "add a login" (admins and the system get createUser's real reasons). Logins are unique by email across
 * all accounts, so creating one, or answering "already taken", would tell a seller that an address is a login of
 * another tenant. Instead every address gets an invitation row and the same mail, and no user row: the invitee
 * chooses the password on the link's page, where a taken address is told so (only its owner reads that mail). The
 * statements are the same for a free address and another tenant's login: only the seller's own account is looked up,
 * and a login or pending invitation of it is refused by name (the seller lists those anyway).
 */
export async function addLogin(
  core: Core,
  actor: Actor,
  input: InvitationInput,
  mailer: Mailer = createMailer(core.config),
) {
  const { Account, User, LoginInvitation } = core.models;
  const v = validate<InvitationInput>(invitationSchema, input);
  authorize(actor, 'create', 'user', { account_id: v.account_id, role: v.role });
  if (!isTenantActor(actor)) throw new Error('addLogin is the tenant path: admins and the system use createUser');
  const account = await Account.findByPk(v.account_id);
  if (!account) throw ValidationError.single('account_id', 'The selected account_id is invalid.');
  const email = normalizeEmail(v.email);
  const sameEmail = { email: { [Op.iLike]: likeExact(email) }, account_id: account.id };
  if (await User.findOne({ where: sameEmail }))
    throw ValidationError.single('email', 'The email has already been taken.');
  if (await LoginInvitation.findOne({ where: { ...sameEmail, ...pending() } }))
    throw ValidationError.single('email', 'An invitation to this email is already pending.');
  await withinInvitationCaps(core, account.id);
  const { token, hash } = newLinkToken();
  await LoginInvitation.create({
    account_id: account.id,
    email,
    name: v.name,
    role: v.role,
    token_hash: hash,
    invited_by: actor.kind === 'system' ? null : actor.userId,
    expires_at: new Date(Date.now() + INVITATION_TTL_DAYS * 86_400_000),
  });
  const link = `${core.config.appUrl}/invitation?token=${token}`;
  // a mail server that fails is logged, never answered (the seller can invite again once the link expires)
  await mailer
    .send(invitationMail(email, account.name, link))
    .catch((err) => core.logger.error({ err, account_id: account.id }, 'invitation mail not sent'));
  return { email, message: addLoginMessage(email) } satisfies AddLoginAnswer;
}
