import type { ActionContext, ActionRequest, ActionResponse, ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { WEBHOOK_EVENTS } from '../../src/webhooks/webhook.schemas.js';
import { statusOptions } from '../components/status-palette.js';
import { actorOf, allow, guarded, tenantReadActions } from './panel-kit.js';
import { serviceActions, showRecord } from './service-actions.js';
import { accountProp, type PanelComponents, nav, hidden, virtualText, noWrapProps } from './panel-ui.js';

/** The body a delivery sends, as one JSON text on its show page (AdminJS would flatten the column into keys). */
function payloadAfter(ctx: AppContext) {
  return async (response: ActionResponse, _request: ActionRequest, context: ActionContext) => {
    const params: Record<string, unknown> | undefined = response.record?.params;
    if (!params?.id) return response;
    for (const k of Object.keys(params)) if (k === 'payload' || k.startsWith('payload.')) delete params[k];
    const delivery = await ctx.services.webhooks.showDelivery(actorOf(context), Number(params.id));
    params.payload_text = JSON.stringify(delivery.payload, null, 2);
    return response;
  };
}

/** "Resend": a new pending delivery of the same event to the same endpoint; the page moves to it. */
function resendAction(ctx: AppContext, components: PanelComponents) {
  return {
    actionType: 'record' as const,
    icon: 'RefreshCw',
    component: components.confirmAction,
    isAccessible: allow('webhook', 'update'),
    custom: { confirm: 'confirmResend' },
    handler: async (_request: unknown, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const again = await guarded(() => ctx.services.webhooks.resend(actorOf(context), Number(context.record!.id())));
      return showRecord(context, again.id, `Queued again as delivery #${again.id}.`);
    },
  };
}

/** The delivery log: read-only (the worker writes it), newest first, the state in words and colour, a Resend action. */
export function webhookDeliveryResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.WebhookDelivery,
    options: {
      navigation: nav.webhooks,
      titleProperty: 'event',
      // fits 1280 px: duration and next try are on the show page, the last error is cut (whole on hover)
      listProperties: ['id', 'event', 'state', 'response_code', 'attempts', 'last_error', 'created_at', 'endpoint_id'],
      filterProperties: ['event', 'state', 'endpoint_id', 'response_code', 'created_at', 'account_id'],
      showProperties: [
        'id',
        'event',
        'state',
        'endpoint_id',
        'event_id',
        'sequence_key',
        'response_code',
        'duration_ms',
        'attempts',
        'next_try_at',
        'delivered_at',
        'last_error',
        'resent_from',
        'payload_text',
        'created_at',
        'account_id',
      ],
      sort: { sortBy: 'created_at', direction: 'desc' },
      properties: {
        ...accountProp,
        ...noWrapProps(components.noWrap, ['event_id', 'sequence_key']),
        endpoint_id: { reference: 'webhook_endpoints', components: { list: components.noWrap } },
        event: { availableValues: WEBHOOK_EVENTS.map((v) => ({ value: v, label: v })) },
        state: {
          availableValues: statusOptions('delivery'),
          components: { list: components.statusBadge, show: components.statusBadge },
        },
        payload: { isVisible: hidden },
        locked_until: { isVisible: hidden },
        // left to right, and a dash for an empty body (admin/components/empty-value.ts)
        payload_text: { ...virtualText, components: { show: components.sourceParts } },
      },
      actions: {
        ...tenantReadActions('webhook'),
        show: { isAccessible: allow('webhook', 'view'), after: payloadAfter(ctx) as never },
        ...serviceActions('webhook', {}),
        resend: resendAction(ctx, components),
      },
    },
  };
}
