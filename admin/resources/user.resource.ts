import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { isSystemWide } from '../../src/policy.js';
import { serviceActions, tenantReadActions } from './panel-kit.js';
import { accountProp, nav, hidden, text, checked } from './panel-ui.js';

export function userResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.User,
    options: {
      navigation: nav.settings,
      listProperties: ['name', 'email', 'role', 'active', 'account_id'],
      editProperties: ['name', 'email', 'role', 'password', 'active'],
      properties: {
        ...accountProp,
        password_hash: { isVisible: hidden },
        password: { type: 'password', isVisible: { list: false, filter: false, show: false, edit: true } },
        role: { availableValues: ['seller', 'agent', 'admin'].map((v) => ({ value: v, label: v })) },
      },
      actions: {
        ...tenantReadActions('user'),
        ...serviceActions('user', {
          create: (actor, p) =>
            services.accounts.createUser(actor, {
              account_id: isSystemWide(actor) && p.account_id ? Number(p.account_id) : (actor.accountId as number),
              role: p.role as 'agent',
              email: text(p.email),
              password: text(p.password),
              name: text(p.name),
            }),
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
