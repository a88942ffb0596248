import type { ActionResponse } from 'adminjs';
import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { allow, tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { accountProp, type PanelComponents, nav, hidden, virtualText, leavePanel } from './panel-ui.js';

/** An export's list filters as text on its show page (the panel cannot show the JSON column itself). */
async function filtersAfter(response: ActionResponse): Promise<ActionResponse> {
  const params: Record<string, unknown> = response.record?.params ?? {};
  const pairs = Object.entries(params)
    .filter(([k]) => k.startsWith('filters.'))
    .map(([k, v]) => `${k.slice('filters.'.length)}: ${v}`);
  for (const k of Object.keys(params)) if (k === 'filters' || k.startsWith('filters.')) delete params[k];
  params.filters_summary = pairs.join('\n') || 'none (all leads)';
  return response;
}

export function exportRunResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.ExportRun,
    options: {
      navigation: nav.leads,
      listProperties: ['id', 'file_extension', 'status', 'rows_written', 'expires_at', 'created_at'],
      properties: {
        ...accountProp,
        file_path: { isVisible: hidden },
        filters: { isVisible: hidden },
        filters_summary: virtualText,
      },
      sort: { sortBy: 'created_at', direction: 'desc' },
      actions: {
        ...tenantReadActions('exportRun'),
        show: { isAccessible: allow('exportRun', 'view'), after: filtersAfter as never },
        ...serviceActions('exportRun', {}),
        download: leavePanel(components.leavePanel, 'record', '/exports/{id}/download', allow('exportRun', 'view')),
      },
    },
  };
}
