import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { serviceActions, tenantReadActions } from './panel-kit.js';
import { nav, text } from './panel-ui.js';

export function accountResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.Account,
    options: {
      navigation: nav.settings,
      listProperties: ['id', 'name', 'created_at'],
      editProperties: ['name'],
      actions: {
        ...tenantReadActions('account'),
        ...serviceActions('account', {
          create: (actor, p) => services.accounts.createAccount(actor, { name: text(p.name) }),
        }),
      },
    },
  };
}
