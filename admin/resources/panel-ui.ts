import type { ActionContext, ActionRequest, ActionResponse, PropertyOptions, ResourceWithOptions } from 'adminjs';
import type { ComponentName } from '../panel-components.js';
import type { AppContext } from '../../src/app-context.js';
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
  valueList: string;
  bulkDelete: string;
  /** A lead's customer record on its page (admin/components/customer-record.tsx). */
  customerRecord: string;
  /** The Customers list's computed columns (admin/components/customer-cells.tsx). */
  customerCells: string;
  /** A lead source's health, snippet, addresses and form fields (admin/components/source-parts.tsx). */
  sourceParts: string;
  /** The push of orders, with the shipping company chosen (admin/components/push-confirm.tsx). */
  pushConfirm: string;
  /** A new order's warehouse, chosen among the account's (admin/components/order-warehouse.tsx). */
  orderWarehouse: string;
  /** An API key's scopes as checkboxes in words, with presets (admin/components/scope-checks.tsx). */
  scopeChecks: string;
  /** The leads' import page: upload, live progress, report (admin/components/import-file.tsx). */
  importFile: string;
  /** A lead's City on its edit form, its typed city not in the list included (admin/components/city-choice.tsx). */
  cityChoice: string;
}

/** The sidebar's groups; each name is a key of `labels` in admin/locales/*.json (AdminJS translates it). */
export const nav = {
  leads: { name: 'leads', icon: 'Users' },
  orders: { name: 'orders', icon: 'ShoppingCart' },
  histories: { name: 'histories', icon: 'Clock' },
  catalogue: { name: 'catalogue', icon: 'Package' },
  settings: { name: 'settings', icon: 'Settings' },
  webhooks: { name: 'webhooks', icon: 'Send' },
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

/** Columns that point at a record of another panel resource, by name: shown as that record's title, linked to it. */
const REFERENCES: Record<string, string> = {
  account_id: 'accounts',
  user_id: 'users',
  city_id: 'cities',
  product_id: 'products',
  endpoint_id: 'webhook_endpoints',
  lead_id: 'leads',
  order_id: 'orders',
  source_id: 'lead_sources',
};
/** Columns that hold a status: a badge in the palette's colour and words wherever they are shown. */
const STATUS_COLUMNS = new Set(['status', 'state', 'old_status', 'new_status']);
/** Text columns of a list: one line cut with an ellipsis, whole on hover (a long error wrapped letter by letter). */
const TEXT_TYPES = new Set(['STRING', 'TEXT', 'CHAR', 'CITEXT']);

/** Declared types shown as plain text on a show page (a password, rich text or JSON keep AdminJS's own). */
const PLAIN = new Set(['', 'string', 'textarea']);

type Attrs = Record<string, { type: { key: string } }>;

/** How one property of a model is shown unless its resource says otherwise (what it declares always wins). */
function shownAs(name: string, typeKey: string, declared: PropertyOptions, components: PanelComponents) {
  const reference = declared.reference ?? REFERENCES[name];
  let views: PropertyOptions['components'] = {};
  if (typeKey === 'ARRAY' || declared.isArray) views = { list: components.valueList, show: components.valueList };
  else if (STATUS_COLUMNS.has(name)) views = { list: components.statusBadge, show: components.statusBadge };
  else if (reference) views = { list: components.noWrap };
  // a text on its page is isolated in its own direction (a Latin address in Arabic) and a code said in words
  else if (TEXT_TYPES.has(typeKey))
    views = { list: components.noWrap, ...(PLAIN.has(String(declared.type ?? '')) ? { show: components.noWrap } : {}) };
  return {
    ...declared,
    ...(reference ? { reference } : {}),
    ...(typeKey === 'ARRAY' ? { isArray: true } : {}),
    components: { ...views, ...declared.components },
  };
}

/**
 * Applied to the whole resource list (admin/admin.ts), so a resource or column added later reads in words by
 * construction: every array column is a list of its values in words (no "Length: 2"), every `<thing>_id` column a
 * reference shown as the record's title (no "User 2"), every status column a badge of the one palette, every text
 * column one line with an ellipsis, and the bulk delete drawer says what happened after a refusal.
 */
export function presentable(resources: ResourceWithOptions[], components: PanelComponents): ResourceWithOptions[] {
  return resources.map(({ resource, options }) => {
    const attrs = (resource as { getAttributes(): Attrs }).getAttributes();
    const properties: Record<string, PropertyOptions> = { ...(options.properties ?? {}) };
    for (const [name, attr] of Object.entries(attrs)) {
      properties[name] = shownAs(name, attr.type.key, properties[name] ?? {}, components);
    }
    const actions = { ...(options.actions ?? {}) };
    if (actions.bulkDelete) actions.bulkDelete = { component: components.bulkDelete, ...actions.bulkDelete };
    return { resource, options: { ...options, properties, actions } };
  });
}
