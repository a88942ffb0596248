import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { SCOPES } from '../../src/actor.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { nav, hidden, text, type PanelComponents } from './panel-ui.js';
import { SCOPE_PRESETS } from '../../src/tokens/scope-presets.js';
import { accountChoiceProp, chosen, ownerChoiceProp } from './account-choice.js';

export function apiTokenResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.ApiToken,
    options: {
      navigation: nav.settings,
      listProperties: ['name', 'scopes', 'last_used_at', 'expires_at', 'created_at', 'account_id'],
      showProperties: ['name', 'scopes', 'last_used_at', 'expires_at', 'created_at', 'user_id', 'account_id'],
      editProperties: ['account_id', 'user_id', 'name', 'scopes', 'expires_at'],
      properties: {
        ...accountChoiceProp,
        ...ownerChoiceProp,
        token_hash: { isVisible: hidden },
        // checkboxes in words with presets on the form (the codes are saved); in words on lists and pages (ValueList)
        scopes: {
          isArray: true,
          availableValues: SCOPES.map((v) => ({ value: v, label: v })),
          components: { edit: components.scopeChecks },
          custom: { scopes: SCOPES, presets: SCOPE_PRESETS },
        },
        expires_at: { type: 'string', description: 'descriptions.expiresAt' },
      },
      actions: {
        ...tenantReadActions('token'),
        ...serviceActions('token', {
          create: (actor, p) =>
            services.tokens.createToken(actor, {
              ...chosen(actor, p, ['account_id', 'user_id']),
              name: text(p.name),
              scopes: (p.scopes as never[]) ?? [],
              ...(p.expires_at ? { expires_at: String(p.expires_at) } : {}),
            }),
          remove: (actor, ids) => services.tokens.revokeTokens(actor, ids),
          // the key itself only in the answer's dialog (admin/components/create-form.tsx), never in a notice
          createdNotice: (_token, t) => t('messages.apiKeyCreated'),
          createdSecret: (t) => ({ kind: 'apiKey', value: String(t.token) }),
        }),
      },
    },
  };
}
