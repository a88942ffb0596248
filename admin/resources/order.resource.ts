import type { PropertyOptions, ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { ORDER_STATUSES } from '../../src/orders/order.model.js';
import { tenantReadActions } from './panel-kit.js';
import { pushActions } from './order-push.js';
import { orderWarehouseAction } from './order-warehouse.js';
import { serviceActions } from './service-actions.js';
import { statusOptions } from '../components/status-palette.js';
import { accountProp, type PanelComponents, nav, hidden, contactRecordProps, timelineShow } from './panel-ui.js';

/** Which columns the list, filters, show page and form use. */
const ORDER_LAYOUT = {
  titleProperty: 'full_name',
  // fits 1280-1440 px with the menu open: the city and the last push error are on the show page (and city a filter)
  listProperties: ['reference', 'full_name', 'phone', 'status', 'tracking_number', 'created_at', 'account_id'],
  filterProperties: [
    'reference',
    'phone',
    'full_name',
    'city',
    'status',
    'tracking_number',
    'created_at',
    'account_id',
  ],
  showProperties: [
    'reference',
    'lead_reference',
    'status',
    'full_name',
    'phone',
    'city',
    'area',
    'address',
    'products_table',
    'tracking_number',
    'push_state',
    'push_attempts',
    'last_push_error',
    'pushed_at',
    'history_timeline',
    'created_at',
    'account_id',
  ],
  editProperties: ['status', 'tracking_number'],
};

const orderProperties = (components: PanelComponents): Record<string, PropertyOptions> => ({
  ...accountProp,
  ...contactRecordProps(components),
  status: {
    availableValues: statusOptions('order').filter((o) => (ORDER_STATUSES as readonly string[]).includes(o.value)),
    components: { list: components.statusBadge, show: components.statusBadge },
  },
  lead_id: { isVisible: hidden },
  created_by_user_id: { isVisible: hidden },
});

export function orderResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.Order,
    options: {
      navigation: nav.orders,
      ...ORDER_LAYOUT,
      sort: { sortBy: 'created_at', direction: 'desc' },
      properties: orderProperties(components),
      actions: {
        ...tenantReadActions('order'),
        show: timelineShow('order', ctx),
        ...serviceActions('order', {
          update: (actor, id, p) =>
            services.orders.updateStatuses(
              actor,
              {
                orders: [
                  { id, status: p.status, ...(p.tracking_number ? { tracking_number: p.tracking_number } : {}) },
                ],
              },
              'ids',
            ),
          remove: (actor, ids) => services.orders.deleteMany(actor, { ids }, 'ids'),
        }),
        ...pushActions(ctx, components.pushConfirm),
        ...orderWarehouseAction(ctx, components.orderWarehouse),
      },
    },
  };
}
