import { flat, type ActionContext, type ActionRequest, type ActionResponse, type ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { INTAKE_OUTCOMES } from '../../src/sources/lead-source.model.js';
import { intakeReasonsAfter } from './intake-reasons.js';
import { allow, tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { accountProp, hidden, nav, noWrapProps, virtualText, type PanelComponents } from './panel-ui.js';

/**
 * The submission as received, one JSON text on the show page (AdminJS would flatten the column into keys); React
 * writes it as text. The record was read through the scoped adapter, so it is the viewer's.
 */
async function payloadAfter(response: ActionResponse, request: ActionRequest, context: ActionContext) {
  await intakeReasonsAfter(response, request, context);
  const params: Record<string, unknown> | undefined = response.record?.params;
  if (!params?.id || !context.record) return response;
  const payload: unknown = flat.get(context.record.params, 'payload') ?? null; // before the keys go (one object)
  for (const k of Object.keys(params)) if (k === 'payload' || k.startsWith('payload.')) delete params[k];
  params.payload_text = JSON.stringify(payload, null, 2);
  return response;
}

const ENTRY = [
  'received_at',
  'source_id',
  'outcome',
  'reason',
  'lead_reference',
  'external_id',
  'origin',
  'client_ip',
  'attempts',
];

/**
 * The intake log (docs/lead-sources.md "In the panel"): every submission a source received in the last 30 days and
 * what became of it. Read-only: the intake endpoints write it, the hourly job deletes what is older, and the scoped
 * adapter shows no older entry in between.
 */
export function leadIntakeResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.LeadIntake,
    options: {
      navigation: nav.leads,
      titleProperty: 'lead_reference',
      // the whole entry on one line of the list; the show page adds the submission
      listProperties: [...ENTRY, 'account_id'],
      filterProperties: ['source_id', 'outcome', 'received_at', 'account_id'],
      showProperties: [...ENTRY, 'payload_text', 'account_id'],
      sort: { sortBy: 'received_at', direction: 'desc' },
      properties: {
        ...accountProp,
        ...noWrapProps(components.noWrap, ['lead_reference', 'external_id', 'client_ip']),
        outcome: {
          availableValues: INTAKE_OUTCOMES.map((value) => ({ value, label: value })),
          components: { list: components.statusBadge, show: components.statusBadge },
        },
        source_id: { reference: 'lead_sources', components: { list: components.noWrap } },
        lead_id: { isVisible: hidden },
        payload: { isVisible: hidden },
        // the submission as JSON, left to right in Arabic too (admin/components/source-parts.tsx)
        payload_text: { ...virtualText, components: { show: components.sourceParts } },
      },
      actions: {
        ...tenantReadActions('source'),
        list: { isAccessible: allow('source', 'viewAny'), after: intakeReasonsAfter as never },
        show: { isAccessible: allow('source', 'view'), after: payloadAfter as never },
        // nothing is written here: no new, edit, delete or bulk action
        ...serviceActions('source', {}),
      },
    },
  };
}
