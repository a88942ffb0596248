import type { ActionContext, ActionResponse, ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { WEBHOOK_EVENTS } from '../../src/webhooks/webhook.schemas.js';
import { accountChoiceProp, chosen } from './account-choice.js';
import { actorOf, allow, guarded, panelText, tenantReadActions } from './panel-kit.js';
import { serviceActions, showRecord, type ShownOnce } from './service-actions.js';
import { type PanelComponents, nav, hidden, showOnly, checked, noWrapProps } from './panel-ui.js';

/** The form's fields the service takes: what AdminJS posts also carries the record's other columns. */
function endpointBody(p: Record<string, unknown>): Record<string, unknown> {
  return {
    ...(p.url !== undefined ? { url: p.url } : {}),
    ...(p.events !== undefined ? { events: p.events } : {}),
    ...(p.active !== undefined ? { active: checked(p.active) } : {}),
  };
}

/**
 * "Rotate secret": a new signing secret, shown once in a dialog (admin/components/confirm-action.tsx); the old one
 * signs beside it for a grace period.
 */
function rotateSecretAction(ctx: AppContext, components: PanelComponents) {
  return {
    actionType: 'record' as const,
    icon: 'Key',
    component: components.confirmAction,
    isAccessible: allow('webhook', 'update'),
    custom: {
      confirm: 'confirmRotateSecret',
      confirmParams: { hours: ctx.config.webhookSecretGraceMs / 3_600_000 },
    },
    handler: async (_request: unknown, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const id = Number(context.record!.id());
      const { secret } = await guarded(() => ctx.services.webhooks.rotateSecret(actorOf(context), id));
      const shown: ShownOnce = { kind: 'webhookSecret', value: secret };
      const notice = panelText(context, 'messages.webhookSecretRotated');
      return { ...(await showRecord(context, id, notice)), secret: shown };
    },
  };
}

/**
 * Webhook endpoints of an account: URL, events, active flag. Writes are services.webhooks calls; the secret is a
 * withheld column (the scoped adapter never selects it; show reads `secret_state`), so it appears only in the dialog
 * of the create and rotate answers.
 */
export function webhookEndpointResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.WebhookEndpoint,
    options: {
      navigation: nav.webhooks,
      titleProperty: 'url',
      listProperties: ['url', 'events', 'active', 'failing_since', 'disabled_at', 'created_at', 'account_id'],
      filterProperties: ['url', 'active', 'created_at', 'account_id'],
      showProperties: [
        'url',
        'events',
        'active',
        'secret_state',
        'rotation_grace_until',
        'failing_since',
        'disabled_at',
        'disabled_reason',
        'created_at',
        'updated_at',
        'account_id',
      ],
      editProperties: ['account_id', 'url', 'events', 'active'],
      sort: { sortBy: 'created_at', direction: 'desc' },
      properties: {
        ...accountChoiceProp,
        ...noWrapProps(components.noWrap, ['url']),
        secret: { isVisible: hidden },
        secret_state: { type: 'string', isVisible: showOnly },
        url: { description: 'descriptions.webhookUrl' },
        // in words from the locale's labels.events (admin/components/value-list.tsx)
        events: { isArray: true, availableValues: WEBHOOK_EVENTS.map((value) => ({ value, label: value })) },
        active: { description: 'descriptions.webhookActive' },
      },
      actions: {
        ...tenantReadActions('webhook'),
        ...serviceActions('webhook', {
          create: async (actor, p) => {
            const { endpoint, secret } = await services.webhooks.create(actor, {
              ...chosen(actor, p),
              ...endpointBody(p),
            });
            return { ...endpoint, id: Number(endpoint.id), secret };
          },
          update: (actor, id, p) => services.webhooks.update(actor, id, endpointBody(p)),
          remove: async (actor, ids) => {
            for (const id of ids) await services.webhooks.remove(actor, id);
          },
          createdNotice: (_created, t) => t('messages.webhookSecretCreated'),
          createdSecret: (created) => ({ kind: 'webhookSecret', value: String(created.secret) }),
          // the service's default: a new endpoint is active, so its form starts with Active ticked
          defaults: { active: 'true' },
        }),
        // One endpoint at a time: a bulk delete through a per-id service call could stop half-way.
        bulkDelete: { isAccessible: false },
        rotateSecret: rotateSecretAction(ctx, components),
      },
    },
  };
}
