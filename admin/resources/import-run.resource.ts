import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { allow, tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { importReportAction } from './import-page.js';
import { accountProp, type PanelComponents, nav, hidden, leavePanel } from './panel-ui.js';

export function importRunResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.ImportRun,
    options: {
      navigation: nav.leads,
      listProperties: ['id', 'file_name', 'status', 'progress', 'rows_written', 'rows_failed', 'created_at'],
      properties: {
        ...accountProp,
        file_path: { isVisible: hidden },
        cursor_row: { isVisible: hidden },
        rows_total_estimated: { isVisible: hidden },
        // rows done out of the total as a bar (admin/components/progress-bar.tsx), live while the run goes on
        progress: {
          type: 'string',
          isVisible: { list: true, filter: false, show: true, edit: false },
          components: { list: components.progressBar, show: components.progressBar },
        },
      },
      sort: { sortBy: 'created_at', direction: 'desc' },
      actions: {
        ...tenantReadActions('importRun'),
        ...serviceActions('importRun', {}),
        importReport: importReportAction(ctx),
        errorReport: leavePanel(components.leavePanel, 'record', '/imports/{id}/report', allow('importRun', 'view')),
      },
    },
  };
}
