import type { PropertyOptions, ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { customerConditions } from '../../src/customers/customer-lookup.repository.js';
import { withComputedFilters } from './computed-filters.js';
import { customerFiguresAfter } from './customer-view.js';
import { allow, tenantReadActions } from './panel-kit.js';
import { accountProp, hidden, nav, noWrapProps, type PanelComponents } from './panel-ui.js';

/** Which columns the list, filters and show page use; a customer is never created or edited here. */
const CUSTOMER_LAYOUT = {
  titleProperty: 'phone_normalized',
  listProperties: [
    'phone_normalized',
    'city',
    'leads',
    'orders',
    'delivered',
    'returned',
    'delivery_rate',
    'risk',
    'blocked',
    'last_order',
    'last_seen_at',
    'account_id',
  ],
  filterProperties: ['phone_normalized', 'risky', 'blocked', 'city', 'last_seen_at', 'account_id'],
  showProperties: [
    'phone_normalized',
    'city',
    'risk',
    'blocked',
    'leads',
    'confirmed',
    'orders',
    'delivered',
    'returned',
    'canceled',
    'delivery_rate',
    'last_order',
    'first_seen_at',
    'last_seen_at',
    'account_id',
  ],
};

const yesNo = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];

function customerProperties(components: PanelComponents): Record<string, PropertyOptions> {
  const cell = { components: { list: components.customerCells, show: components.customerCells } };
  const computed = { type: 'string' as const, isSortable: false, ...cell };
  return {
    ...accountProp,
    ...noWrapProps(components.noWrap, ['phone_normalized', 'city']),
    leads: { type: 'number', ...cell },
    delivery_rate: { ...computed, isVisible: { list: true, filter: false, show: true, edit: false } },
    risk: { ...computed, isVisible: { list: true, filter: false, show: true, edit: false } },
    // filters on the rule itself (customer-lookup.repository.ts), so the filter and the Risk column agree
    risky: {
      type: 'string',
      availableValues: yesNo,
      isVisible: { list: false, filter: true, show: false, edit: false },
    },
    blocked: { ...computed, availableValues: yesNo, isVisible: { list: true, filter: true, show: true, edit: false } },
    last_order: { ...computed, isVisible: { list: true, filter: false, show: true, edit: false } },
    ...Object.fromEntries(
      ['id', 'last_order_id', 'last_order_reference', 'last_order_status', 'last_order_at', 'last_lead_at'].map(
        (path) => [path, { isVisible: hidden }],
      ),
    ),
  };
}

/**
 * Customers (docs/admin-panel.md "Customers"): one row per account and E.164 phone, kept by the database's triggers;
 * list and show only, newest seen first, each row's risk, block, delivery rate and last order computed by the same
 * record the queue and the lead page show. Filters: risky and blocked by the code's rule, city, phone; the account
 * scope is the adapter's, as everywhere.
 */
export function customerResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  const figures = customerFiguresAfter(ctx) as never;
  return {
    resource: withComputedFilters(ctx.models.Customer, customerConditions),
    options: {
      navigation: nav.leads,
      ...CUSTOMER_LAYOUT,
      sort: { sortBy: 'last_seen_at', direction: 'desc' },
      properties: customerProperties(components),
      actions: {
        ...tenantReadActions('customer'),
        list: { isAccessible: allow('customer', 'viewAny'), after: figures },
        show: { isAccessible: allow('customer', 'view'), after: figures },
      },
    },
  };
}
