import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { allow, serviceActions, tenantReadActions } from './panel-kit.js';
import { accountProp, type PanelComponents, nav, hidden, leavePanel } from './panel-ui.js';

export function importRunResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.ImportRun,
    options: {
      navigation: nav.leads,
      listProperties: ['id', 'file_name', 'status', 'rows_read', 'rows_written', 'rows_failed', 'created_at'],
      properties: { ...accountProp, file_path: { isVisible: hidden }, cursor_row: { isVisible: hidden } },
      sort: { sortBy: 'created_at', direction: 'desc' },
      actions: {
        ...tenantReadActions('importRun'),
        ...serviceActions('importRun', {}),
        errorReport: leavePanel(components.leavePanel, 'record', '/imports/{id}/report', allow('importRun', 'view')),
      },
    },
  };
}
