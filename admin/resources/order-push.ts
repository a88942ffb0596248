import {
  ValidationError as AdminValidationError,
  type ActionContext,
  type ActionRequest,
  type ActionResponse,
} from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { ValidationError } from '../../src/errors.js';
import { CHOOSE_CARRIER, NO_ACTIVE_CARRIER } from '../../src/shipping/shipping.service.js';
import { actorOf, allow, panelText, toAdminError, type PanelAdmin } from './panel-kit.js';
import { recordJson } from './service-actions.js';

/*
 * Pushing orders to a shipping company from the panel (docs/admin-panel.md "Orders"): the bulk action of the list and
 * the record action of an order's page, both confirmed in admin/components/push-confirm.tsx, which lists the
 * account's active companies (`pushChoices`) and sends the one chosen. The service (src/orders/order-push.ts) decides:
 * the company must be an active one of the orders' account, and none named is refused when there are several.
 */

/** The order can be pushed from its page: new, and not already queued, being sent or sent. */
const pushable = ({ record }: ActionContext): boolean =>
  record?.param('status') === 'new' && !['queued', 'sending', 'sent'].includes(String(record.param('push_state')));

/** The service's refusals of a push that the panel says in its user's words (`messages.*` of admin/locales). */
const REFUSALS: [RegExp, string, string[]][] = [
  [/^Order (\S+) is (\S+); only new orders can be pushed\.$/, 'messages.pushNotNew', ['reference', 'status']],
  [/^Order (\S+) has a total of 0/, 'messages.pushZeroTotal', ['reference']],
  [/^Push the orders of one account at a time\.$/, 'messages.pushOneAccount', []],
];

function refusalWords(said: string, context: ActionContext, chosen: string): string | null {
  if (said === NO_ACTIVE_CARRIER) return panelText(context, 'messages.pushNoCarrier');
  if (said === CHOOSE_CARRIER) return panelText(context, 'messages.pushChooseCarrier');
  if (said === 'The selected shipping_company is invalid.')
    return panelText(context, 'messages.pushUnknownCarrier', { code: chosen });
  for (const [pattern, key, names] of REFUSALS) {
    const m = pattern.exec(said);
    if (!m) continue;
    const vars = Object.fromEntries(names.map((n, i) => [n, m[i + 1]]));
    if (vars.status) vars.status = panelText(context, `labels.status.${vars.status}`);
    return panelText(context, key, vars);
  }
  return null;
}

/** A refused push: its first reason in the user's words (the service's sentence when the panel has none). */
function pushRefusal(err: unknown, context: ActionContext, chosen: string): unknown {
  const language = (context.currentAdmin as PanelAdmin | undefined)?.language;
  if (!(err instanceof ValidationError)) return toAdminError(err, language);
  const said = Object.values(err.errors).flat();
  const message = said.map((s) => refusalWords(s, context, chosen) ?? s)[0] ?? err.message;
  return new AdminValidationError({}, { message, type: 'validation' });
}

/** The company the form chose: a text, or none (an empty choice, or no select: the account's only company). */
function chosenCompany(request: ActionRequest): unknown {
  const v = (request.payload ?? {}).shipping_company;
  return v === undefined || v === '' ? undefined : v;
}

async function pushHandler(ctx: AppContext, request: ActionRequest, context: ActionContext): Promise<ActionResponse> {
  const records = context.record ? [context.record] : (context.records ?? []);
  const ids = records.map((r) => Number(r.id()));
  const chosen = chosenCompany(request);
  const body = { ids, ...(chosen === undefined ? {} : { shipping_company: chosen }) };
  const result = await ctx.services.orders.push(actorOf(context), body, 'ids').catch((err: unknown) => {
    throw pushRefusal(err, context, String(chosen ?? ''));
  });
  const notice = result.queued
    ? { message: panelText(context, 'messages.ordersQueued', { count: result.queued, company: result.company }) }
    : { message: panelText(context, 'messages.pushNothing', { company: result.company }) };
  if (!context.record)
    return {
      records: records.map((r) => r.toJSON(context.currentAdmin)),
      redirectUrl: context.h.resourceUrl({ resourceId: 'orders' }),
      notice: { ...notice, type: result.queued ? 'success' : 'info' },
    };
  const id = String(context.record.id());
  return {
    record: await recordJson(context, id),
    redirectUrl: context.h.recordActionUrl({ resourceId: 'orders', recordId: id, actionName: 'show' }),
    notice: { ...notice, type: result.queued ? 'success' : 'info' },
  };
}

/** The list's bulk push and the order page's "Push to carrier", both confirmed with the company chosen. */
export function pushActions(ctx: AppContext, component: string) {
  const handler = (request: ActionRequest, _response: unknown, context: ActionContext) =>
    pushHandler(ctx, request, context);
  return {
    pushToShipping: {
      actionType: 'bulk' as const,
      icon: 'Truck',
      component,
      isAccessible: allow('order', 'update'),
      handler,
    },
    pushOrder: {
      actionType: 'record' as const,
      icon: 'Truck',
      component,
      isAccessible: allow('order', 'update'),
      // offered where it applies; the service still refuses an order that is not new
      isVisible: pushable,
      handler,
    },
    pushChoices: {
      actionType: 'resource' as const,
      component: false as const,
      isVisible: false,
      isAccessible: allow('order', 'update'),
      // what the confirmation lists: `?ids=1,2` (the orders to push); GET only, it reads (panel-kit's READ_ACTIONS)
      handler: async (request: ActionRequest, _response: unknown, context: ActionContext) => {
        const ids = String(request.query?.ids ?? '')
          .split(',')
          .filter(Boolean)
          .map(Number);
        return ctx.services.orders.pushChoices(actorOf(context), ids);
      },
    },
  };
}
