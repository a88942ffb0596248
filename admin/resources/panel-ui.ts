import type { ActionContext, ActionRequest, ActionResponse } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { actorOf, allow } from './panel-kit.js';

/** Component ids of admin/components, as the panel's ComponentLoader registered them. */
export interface PanelComponents {
  leavePanel: string;
  confirmAction: string;
}

export const nav = {
  leads: { name: 'Leads', icon: 'Users' },
  orders: { name: 'Orders', icon: 'ShoppingCart' },
  histories: { name: 'Histories', icon: 'Clock' },
  catalogue: { name: 'Catalogue', icon: 'Package' },
  settings: { name: 'Settings', icon: 'Settings' },
};
export const hidden = { list: false, filter: false, show: false, edit: false };
export const showOnly = { list: false, filter: false, show: true, edit: false };
/** The tenant column: listed, filtered and shown, never edited (the service decides a new row's account). */
export const accountProp = { account_id: { isVisible: { list: true, filter: true, show: true, edit: false } } };
/** A text the show page computes (after hooks); not a column. */
export const virtualText = { type: 'textarea' as const, isVisible: showOnly };

/** The form payload's coercions, one spelling each: AdminJS sends every field as a string (or leaves it out). */
export const text = (v: unknown): string => String(v ?? '');
export const checked = (v: unknown): boolean => v === true || v === 'true';
export const optional = <T>(v: unknown, as: (v: unknown) => T): T | undefined => (v === undefined ? undefined : as(v));

/** Status, products and the history timeline of a lead or order, as text on its show page. */
export function timelineAfter(kind: 'lead' | 'order', ctx: AppContext) {
  return async (response: ActionResponse, _request: ActionRequest, context: ActionContext) => {
    const id = Number(response.record?.params?.id);
    if (!id) return response;
    const actor = actorOf(context);
    const full =
      kind === 'lead' ? await ctx.services.leads.show(actor, { id }) : await ctx.services.orders.show(actor, { id });
    response.record.params.products_summary =
      full.products.map((p) => `${p.sku} · ${p.name} · ${p.quantity} × ${p.price}`).join('\n') || '—';
    response.record.params.history_timeline = full.history
      .map((h) => {
        const at = h.changed_at.replace('T', ' ').slice(0, 19);
        return `${at} UTC — ${h.old_status ?? '(created)'} → ${h.new_status} — by ${h.changed_by}`;
      })
      .join('\n');
    if ('data' in full && Array.isArray(full.data))
      response.record.params.custom_data = full.data.map((d) => `${d.key}: ${d.value}`).join('\n') || '—';
    return response;
  };
}

/** The properties a lead and an order share: their show page's computed texts, and columns the panel never shows. */
export const contactRecordProps = {
  products_summary: virtualText,
  history_timeline: virtualText,
  phone_normalized: { isVisible: hidden },
  data: { isVisible: hidden },
};

/** The show action of a lead or an order: its page with products and the history timeline. */
export const timelineShow = (kind: 'lead' | 'order', ctx: AppContext) => ({
  isAccessible: allow(kind, 'view'),
  after: timelineAfter(kind, ctx) as never,
});

/** An action that loads a dashboard page or file (admin/components/leave-panel.tsx); `{id}` is the record's id. */
export function leavePanel(
  component: string,
  actionType: 'resource' | 'record',
  href: string,
  isAccessible: ReturnType<typeof allow>,
  icon = 'Download',
) {
  return {
    actionType,
    icon,
    isAccessible,
    component,
    custom: { href },
    handler: async (_req: ActionRequest, _res: ActionResponse, c: ActionContext) =>
      c.record ? { record: c.record.toJSON(c.currentAdmin) } : {},
  };
}
