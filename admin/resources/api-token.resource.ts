import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { SCOPES } from '../../src/actor.js';
import { serviceActions, tenantReadActions } from './panel-kit.js';
import { accountProp, nav, hidden, text } from './panel-ui.js';

export function apiTokenResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.ApiToken,
    options: {
      navigation: nav.settings,
      listProperties: ['name', 'scopes', 'last_used_at', 'expires_at', 'created_at', 'account_id'],
      showProperties: ['name', 'scopes', 'last_used_at', 'expires_at', 'created_at', 'user_id', 'account_id'],
      editProperties: ['name', 'scopes', 'expires_at'],
      properties: {
        ...accountProp,
        token_hash: { isVisible: hidden },
        scopes: { isArray: true, availableValues: SCOPES.map((v) => ({ value: v, label: v })) },
        expires_at: { type: 'string', description: 'descriptions.expiresAt' },
      },
      actions: {
        ...tenantReadActions('token'),
        ...serviceActions('token', {
          create: (actor, p) =>
            services.tokens.createToken(actor, {
              name: text(p.name),
              scopes: (p.scopes as never[]) ?? [],
              ...(p.expires_at ? { expires_at: String(p.expires_at) } : {}),
            }),
          remove: (actor, ids) => services.tokens.revokeTokens(actor, ids),
          createdNotice: (token, t) => t('messages.apiKeyOnce', { token: String(token.token) }),
        }),
      },
    },
  };
}
