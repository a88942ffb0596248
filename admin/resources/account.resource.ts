import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { STOCK_POLICIES, type StockPolicy } from '../../src/accounts/account.schemas.js';
import { PHONE_COUNTRIES } from '../../src/phone.js';
import { timeZoneNames } from '../../src/time-zones.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { nav, text } from './panel-ui.js';

/** The risk rule's thresholds (src/customers/customer.risk.ts), edited by the seller and by an admin. */
const RISK_FIELDS = ['risk_min_returns', 'risk_min_orders', 'risk_min_delivery_rate'] as const;

export function accountResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.Account,
    options: {
      navigation: nav.settings,
      listProperties: ['id', 'name', 'phone_country', 'time_zone', 'created_at'],
      editProperties: ['name', 'phone_country', 'time_zone', ...RISK_FIELDS, 'stock_policy'],
      properties: {
        // the country of national numbers typed without +; new accounts start from DEFAULT_COUNTRY
        phone_country: { availableValues: PHONE_COUNTRIES.map((c) => ({ value: c, label: c })) },
        // the zone its times are shown and typed in; left empty on creation, the phone country's zone
        time_zone: { availableValues: timeZoneNames().map((z) => ({ value: z, label: z })) },
        risk_min_returns: { type: 'number', description: 'descriptions.riskMinReturns' },
        risk_min_orders: { type: 'number', description: 'descriptions.riskMinOrders' },
        risk_min_delivery_rate: { type: 'number', description: 'descriptions.riskMinDeliveryRate' },
        // docs/stock.md "The policy"
        stock_policy: {
          availableValues: STOCK_POLICIES.map((v) => ({ value: v, label: v })),
          description: 'descriptions.stockPolicy',
        },
        // docs/cash.md: kept in cents; set with the CLI until the panel's cash settings come (issue 44)
        currency: { isVisible: false },
        buyer_delivery_fee: { isVisible: false },
      },
      actions: {
        ...tenantReadActions('account'),
        ...serviceActions('account', {
          create: (actor, p) =>
            services.accounts.createAccount(actor, {
              name: text(p.name),
              ...(p.phone_country ? { phone_country: text(p.phone_country) } : {}),
              ...(p.time_zone ? { time_zone: text(p.time_zone) } : {}),
            }),
          update: (actor, id, p) =>
            services.accounts.updateAccount(actor, id, {
              ...(p.name !== undefined ? { name: text(p.name) } : {}),
              ...(p.phone_country !== undefined ? { phone_country: text(p.phone_country) } : {}),
              ...(p.time_zone !== undefined ? { time_zone: text(p.time_zone) } : {}),
              ...Object.fromEntries(RISK_FIELDS.filter((f) => p[f] !== undefined).map((f) => [f, text(p[f])])),
              ...(p.stock_policy ? { stock_policy: text(p.stock_policy) as StockPolicy } : {}),
            }),
        }),
      },
    },
  };
}
