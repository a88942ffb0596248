import {
  BaseRecord,
  type Action,
  type ActionHandler,
  type ActionResponse,
  type ResourceOptions,
  type ResourceWithOptions,
} from 'adminjs';
import type { Actor } from '../../src/actor.js';
import { isTenantActor } from '../../src/policy.js';
import type { UserCreateInput } from '../../src/accounts/account.schemas.js';
import type { AppContext } from '../../src/app-context.js';
import { actorOf, guarded, panelText, tenantReadActions } from './panel-kit.js';
import { payloadOf, serviceActions } from './service-actions.js';
import { nav, hidden, text, checked } from './panel-ui.js';
import { accountChoiceProp, chosen } from './account-choice.js';

type Handler = ActionHandler<ActionResponse>;
type Actions = NonNullable<ResourceOptions['actions']>;

/** The new login of the panel's form; a seller's always in the seller's account. */
function newLogin(actor: Actor, p: Record<string, unknown>): UserCreateInput {
  return {
    account_id: (chosen(actor, p).account_id as number | undefined) ?? (actor.accountId as number),
    role: p.role as 'agent',
    email: text(p.email),
    password: text(p.password),
    name: text(p.name),
  };
}

/**
 * The service actions, with a seller's "new" going through addLogin: an invitation by mail, with the same notice and
 * the same users list whether the address was free or another account's login (src/auth/add-login.ts); the
 * password field is ignored there. Admins see the record or the real reason.
 */
function withSellerAdd(ctx: AppContext, ops: Parameters<typeof serviceActions>[1]): Actions {
  const actions = serviceActions('user', ops);
  const adminNew = actions.new as Partial<Action<ActionResponse>> & { handler: Handler };
  const handler: Handler = async (request, response, context) => {
    const actor = actorOf(context);
    if (!isTenantActor(actor)) return adminNew.handler(request, response, context);
    const answer = await guarded(() => ctx.services.invitations.addLogin(actor, newLogin(actor, payloadOf(request))));
    return {
      record: new BaseRecord({}, context.resource).toJSON(context.currentAdmin),
      redirectUrl: context.h.resourceActionUrl({ resourceId: context.resource.id(), actionName: 'list' }),
      notice: { message: panelText(context, 'messages.invitationMailed', { email: answer.email }), type: 'success' },
    };
  };
  return { ...actions, new: { ...adminNew, handler } } as Actions;
}

export function userResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.User,
    options: {
      navigation: nav.settings,
      // a reference to a user (a key's owner, a run's user) reads as the user's name
      titleProperty: 'name',
      listProperties: ['name', 'email', 'role', 'active', 'account_id'],
      editProperties: ['account_id', 'name', 'email', 'role', 'password', 'active'],
      properties: {
        ...accountChoiceProp,
        password_hash: { isVisible: hidden },
        password: {
          type: 'password',
          isVisible: { list: false, filter: false, show: false, edit: true },
          // a seller's new login is an invitation (add-login.ts): the invitee chooses the password, so none is asked
          description: 'descriptions.sellerPassword',
        },
        role: { availableValues: ['seller', 'agent', 'admin'].map((v) => ({ value: v, label: v })) },
      },
      actions: {
        ...tenantReadActions('user'),
        ...withSellerAdd(ctx, {
          create: (actor, p) => services.accounts.createUser(actor, newLogin(actor, p)),
          update: (actor, id, p) =>
            services.accounts.updateUser(actor, id, {
              name: p.name as string,
              email: p.email as string,
              role: p.role as 'agent',
              ...(p.password ? { password: String(p.password) } : {}),
              ...(p.active !== undefined ? { active: checked(p.active) } : {}),
            }),
          remove: (actor, ids) => services.accounts.deleteUsers(actor, ids),
        }),
      },
    },
  };
}
