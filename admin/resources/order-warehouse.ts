import type { ActionContext, ActionRequest } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { isSystemWide } from '../../src/policy.js';
import { fieldMessage, knownMessage, pageWords } from '../panel-form-errors.js';
import { ValidationError } from '../../src/errors.js';
import { actorOf, allow, panelText, toAdminError, type PanelAdmin } from './panel-kit.js';
import { recordJson } from './service-actions.js';

/**
 * An order's "Warehouse" (issue 43, docs/stock.md): a new order is shipped from another warehouse of its account,
 * what it holds released in the old one and reserved in the new one (services.stock.moveOrderTo), refused in the user's
 * words; `warehouseChoices` answers what the page offers.
 */
export function orderWarehouseAction(ctx: AppContext, component: string) {
  return {
    orderWarehouse: {
      actionType: 'record' as const,
      icon: 'Home',
      component,
      isAccessible: allow('stock', 'update'),
      isVisible: ({ record }: ActionContext) => record?.param('status') === 'new',
      handler: async (request: ActionRequest, _response: unknown, context: ActionContext) => {
        const id = String(context.record!.id());
        const language = (context.currentAdmin as PanelAdmin | undefined)?.language;
        const moved = await ctx.services.stock
          .moveOrderTo(actorOf(context), Number(id), { warehouse: request.payload?.warehouse })
          .catch((err: unknown) => {
            throw toAdminError(err instanceof ValidationError ? inWords(err, language) : err, language);
          });
        return {
          record: await recordJson(context, id),
          redirectUrl: context.h.recordActionUrl({ resourceId: 'orders', recordId: id, actionName: 'show' }),
          notice: {
            message: panelText(context, 'messages.orderWarehouse', { code: moved.warehouse }),
            type: 'success',
          },
        };
      },
    },
    // what the action's page offers (GET only, it reads: panel-kit's READ_ACTIONS): the warehouses, the order's
    warehouseChoices: {
      actionType: 'record' as const,
      component: false as const,
      isVisible: false,
      isAccessible: allow('stock', 'update'),
      handler: async (_request: ActionRequest, _response: unknown, context: ActionContext) => {
        const record = context.record!;
        const actor = actorOf(context);
        const scope = isSystemWide(actor) ? { account_id: Number(record.param('account_id')) } : {};
        const warehouses = await ctx.services.stock.warehouses(actor, scope);
        const own = Number(record.param('warehouse_id')) || null;
        const current = warehouses.find((w) => (own ? w.id === own : w.is_default));
        return {
          record: record.toJSON(context.currentAdmin),
          warehouses: warehouses.map(({ code, name }) => ({ code, name })),
          current: current?.code ?? '',
        };
      },
    },
  };
}

/** The service's refusal with each message in the user's words where the panel has them. */
function inWords(err: ValidationError, language?: string): ValidationError {
  const words = pageWords(language);
  const say = (m: string) => (knownMessage(m) ? fieldMessage(m, words) : m);
  const errors = Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [k, v.map(say)]));
  return new ValidationError(errors, Object.values(errors).flat()[0] ?? err.message);
}
