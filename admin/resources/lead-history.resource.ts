import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { accountProp, nav, hidden, noWrapProps, statusBadgeProps, type PanelComponents } from './panel-ui.js';

export function leadHistoryResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.LeadHistory,
    options: {
      navigation: nav.histories,
      properties: {
        ...accountProp,
        ...statusBadgeProps(components.statusBadge, ['old_status', 'new_status']),
        ...noWrapProps(components.noWrap, ['id', 'lead_reference']),
        lead_id: { isVisible: hidden },
        changed_by_user_id: { isVisible: hidden },
      },
      sort: { sortBy: 'changed_at', direction: 'desc' },
      actions: { ...tenantReadActions('leadHistory'), ...serviceActions('leadHistory', {}) },
    },
  };
}
