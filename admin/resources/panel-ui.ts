import type { ActionContext, ActionRequest, ActionResponse } from 'adminjs';
import type { ComponentName } from '../panel-components.js';
import type { AppContext } from '../../src/context.js';
import { actorOf, allow } from './panel-kit.js';
import { viewerOf, zoneOfJson } from './panel-times.js';
import { formatInZone } from '../../src/time-zones.js';

/** Component ids of admin/components, as the panel's ComponentLoader registered them. */
export interface PanelComponents {
  leavePanel: string;
  confirmAction: string;
  statusBadge: string;
  noWrap: string;
  recordDetails: string;
  progressBar: string;
  productsEditor: string;
  /** Every date-time property (admin/resources/panel-times.ts applies it to all resources). */
  zonedTime: string;
}

export const nav = {
  leads: { name: 'Leads', icon: 'Users' },
  orders: { name: 'Orders', icon: 'ShoppingCart' },
  histories: { name: 'Histories', icon: 'Clock' },
  catalogue: { name: 'Catalogue', icon: 'Package' },
  settings: { name: 'Settings', icon: 'Settings' },
  webhooks: { name: 'Webhooks', icon: 'Send' },
};
export const hidden = { list: false, filter: false, show: false, edit: false };
export const showOnly = { list: false, filter: false, show: true, edit: false };
/**
 * The tenant column: listed, filtered and shown, never edited (the service decides a new row's account). A reference
 * to accounts, so it reads as the account's name also where the model declares no association (the histories,
 * shipping companies, import and export runs showed "2").
 */
export const accountProp = {
  account_id: {
    reference: 'accounts',
    isVisible: { list: true, filter: true, show: true, edit: false },
    // its name on one line (a list column otherwise breaks "Shop mwuq07rp155ae" mid-word)
    components: { list: 'NoWrap' satisfies ComponentName },
  },
};
/** A part the show page computes (after hooks) and a component draws; not a column. */
export const virtualText = { type: 'textarea' as const, isVisible: showOnly };

/** The form payload's coercions, one spelling each: AdminJS sends every field as a string (or leaves it out). */
export const text = (v: unknown): string => String(v ?? '');
export const checked = (v: unknown): boolean => v === true || v === 'true';
export const optional = <T>(v: unknown, as: (v: unknown) => T): T | undefined => (v === undefined ? undefined : as(v));

/**
 * Products, custom data and the history of a lead or order on its show page, as JSON texts for
 * admin/components/record-details.tsx (AdminJS flattens nested params; a text arrives whole).
 */
export function timelineAfter(kind: 'lead' | 'order', ctx: AppContext) {
  return async (response: ActionResponse, _request: ActionRequest, context: ActionContext) => {
    const id = Number(response.record?.params?.id);
    if (!id) return response;
    const actor = actorOf(context);
    const full =
      kind === 'lead' ? await ctx.services.leads.show(actor, { id }) : await ctx.services.orders.show(actor, { id });
    const params = response.record.params;
    const viewer = viewerOf(context);
    const zone = zoneOfJson(response.record, `${kind}s`, viewer.zone);
    params.products_table = JSON.stringify(full.products);
    params.history_timeline = JSON.stringify(
      full.history.map((h) => ({
        old_status: h.old_status,
        new_status: h.new_status,
        changed_by: h.changed_by,
        changed_at: h.changed_at,
        when_text: formatInZone(h.changed_at, zone, viewer.language),
        note: 'note' in h ? (h.note ?? null) : null,
      })),
    );
    if ('data' in full && Array.isArray(full.data)) params.custom_data = JSON.stringify(full.data);
    if ('order_reference' in full) params.order_reference = full.order_reference ?? '—';
    return response;
  };
}

/** The identifiers a list shows on one line (admin/components/no-wrap.tsx). */
export const noWrapProps = (component: string, paths: string[]) =>
  Object.fromEntries(paths.map((path) => [path, { components: { list: component, show: component } }]));

/** The status column in the palette's colour and words (admin/components/status-badge.tsx). */
export const statusBadgeProps = (component: string, paths: string[] = ['status']) =>
  Object.fromEntries(paths.map((path) => [path, { components: { list: component, show: component } }]));

/** The properties a lead and an order share: their show page's computed parts, and columns the panel never shows. */
export const contactRecordProps = (components: PanelComponents) => {
  const computed = { ...virtualText, components: { show: components.recordDetails } };
  return {
    products_table: computed,
    history_timeline: computed,
    ...noWrapProps(components.noWrap, ['reference', 'full_name', 'phone', 'city', 'tracking_number', 'lead_reference']),
    phone_normalized: { isVisible: hidden },
    data: { isVisible: hidden },
  };
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
