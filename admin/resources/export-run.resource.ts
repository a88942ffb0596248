import type { ActionContext, ActionResponse } from 'adminjs';
import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { allow, panelText, tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { accountProp, type PanelComponents, nav, hidden, virtualText, leavePanel } from './panel-ui.js';

/** A word of the locale, else the code itself (a filter with no word of its own is shown as it was given). */
function wordOr(context: ActionContext, key: string, code: string): string {
  const word = panelText(context, key);
  return word === key ? code : word;
}

/**
 * An export's list filters as text on its show page (the panel cannot show the JSON column itself), in the reader's
 * words: "Status: Nouveau", and "Aucun (tous les prospects)" for none, never `{}`.
 */
async function filtersAfter(response: ActionResponse, _req: unknown, context: ActionContext): Promise<ActionResponse> {
  const params: Record<string, unknown> = response.record?.params ?? {};
  const pairs = Object.entries(params)
    .filter(([k]) => k.startsWith('filters.'))
    .map(([k, v]) => {
      const name = k.slice('filters.'.length);
      const value = name === 'status' ? wordOr(context, `labels.status.${v}`, String(v)) : String(v);
      return `${wordOr(context, `properties.${name}`, name)}: ${value}`;
    });
  for (const k of Object.keys(params)) if (k === 'filters' || k.startsWith('filters.')) delete params[k];
  params.filters_summary = pairs.join('\n') || panelText(context, 'messages.exportAllLeads');
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
