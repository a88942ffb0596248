import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { serviceActions, tenantReadActions } from './panel-kit.js';
import { accountProp, nav, showOnly, checked } from './panel-ui.js';

const COMPANY_FIELDS = ['code', 'name', 'endpoint_url', 'api_key', 'hmac_secret', 'timeout_ms', 'active'];

function pick(p: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]]));
}

/** Form strings of a shipping company's number and flag → the service's types (other fields stay strings). */
function companyValues(p: Record<string, unknown>) {
  return {
    ...(p.timeout_ms !== undefined ? { timeout_ms: Number(p.timeout_ms) } : {}),
    ...(p.active !== undefined ? { active: checked(p.active) } : {}),
  };
}

export function shippingCompanyResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.ShippingCompany,
    options: {
      navigation: nav.settings,
      listProperties: ['code', 'name', 'endpoint_url', 'active', 'account_id'],
      showProperties: [
        'code',
        'name',
        'adapter',
        'endpoint_url',
        'timeout_ms',
        'active',
        'api_key_state',
        'hmac_secret_state',
        'account_id',
      ],
      editProperties: ['code', 'name', 'endpoint_url', 'api_key', 'hmac_secret', 'timeout_ms', 'active'],
      properties: {
        ...accountProp,
        hmac_secret: {
          type: 'password',
          description: 'descriptions.hmacSecret',
        },
        api_key: { type: 'password', description: 'descriptions.apiKey' },
        api_key_state: { type: 'string', isVisible: showOnly },
        hmac_secret_state: { type: 'string', isVisible: showOnly },
      },
      actions: {
        ...tenantReadActions('shippingCompany'),
        ...serviceActions('shippingCompany', {
          create: (actor, p) =>
            services.shipping.createCompany(actor, { ...pick(p, COMPANY_FIELDS), ...companyValues(p) } as never),
          update: (actor, id, p) =>
            services.shipping.updateCompany(actor, id, { ...pick(p, COMPANY_FIELDS), ...companyValues(p) } as never),
          createdNotice: (c, t) =>
            c.hmac_secret
              ? t('messages.hmacSecretOnce', { secret: String(c.hmac_secret) })
              : t('messages.successfullyCreated'),
        }),
      },
    },
  };
}
