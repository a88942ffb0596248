import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { CARRIER_TIMEOUT_MS } from '../../src/shipping/shipping.service.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { nav, showOnly, checked } from './panel-ui.js';
import { accountChoiceProp, chosen } from './account-choice.js';

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
      editProperties: ['account_id', 'code', 'name', 'endpoint_url', 'api_key', 'hmac_secret', 'timeout_ms', 'active'],
      properties: {
        // docs/cash.md: the tariff, kept in cents; set with the CLI until the panel's tariff form comes (issue 44)
        delivery_fee: { isVisible: false },
        return_fee: { isVisible: false },
        cod_commission_percent: { isVisible: false },
        remit_within_days: { isVisible: false },
        ...accountChoiceProp,
        hmac_secret: {
          type: 'password',
          description: 'descriptions.hmacSecret',
          isRequired: false,
        },
        api_key: { type: 'password', isRequired: false, description: 'descriptions.apiKey' },
        api_key_state: { type: 'string', isVisible: showOnly },
        // optional: the service fills them in (the new form shows the defaults); only code, name and URL are required
        // the words say 5000: CARRIER_TIMEOUT_MS of src/shipping/shipping.service.ts
        timeout_ms: { isRequired: false, description: 'descriptions.timeoutMs' },
        active: { isRequired: false },
        code: { isRequired: true },
        name: { isRequired: true },
        endpoint_url: { isRequired: true },
        hmac_secret_state: { type: 'string', isVisible: showOnly },
      },
      actions: {
        ...tenantReadActions('shippingCompany'),
        ...serviceActions('shippingCompany', {
          create: (actor, p) =>
            services.shipping.createCompany(actor, {
              ...chosen(actor, p),
              ...pick(p, COMPANY_FIELDS),
              ...companyValues(p),
            } as never),
          update: (actor, id, p) =>
            services.shipping.updateCompany(actor, id, { ...pick(p, COMPANY_FIELDS), ...companyValues(p) } as never),
          createdNotice: (c, t) => t(c.hmac_secret ? 'messages.hmacSecretCreated' : 'messages.successfullyCreated'),
          createdSecret: (c) => (c.hmac_secret ? { kind: 'hmacSecret', value: String(c.hmac_secret) } : null),
          // the service's defaults, shown filled in on the new form
          defaults: { timeout_ms: String(CARRIER_TIMEOUT_MS), active: 'true' },
        }),
      },
    },
  };
}
