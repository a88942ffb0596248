import type { ActionContext, ActionRequest, PropertyOptions, ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { LEAD_STATUSES } from '../../src/leads/lead.model.js';
import { targetAccount } from '../../src/policy.js';
import { isRowId } from '../../src/query.js';
import type { ProductLineInput } from '../../src/leads/lead.schemas.js';
import { actorOf, allow, guarded, panelText, tenantReadActions, toActionDate } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { statusOptions } from '../components/status-palette.js';
import { accountChoiceProp, chosen } from './account-choice.js';
import { withCustomerRecord } from './customer-view.js';
import { importFileAction } from './import-page.js';
import { type PanelComponents, nav, hidden, virtualText, text, contactRecordProps, timelineShow } from './panel-ui.js';
import { withCityOnForm } from './lead-city.js';

/** "Export" buttons on the leads list: the list's current filters go to the export job. */
function transferAction(ctx: AppContext, ext: 'csv' | 'xlsx', component: string) {
  return {
    actionType: 'resource' as const,
    icon: 'Download',
    component,
    showInDrawer: true,
    isAccessible: allow('lead', 'export'),
    custom: {
      confirm: 'confirmExport',
      confirmParams: { format: ext.toUpperCase() },
    },
    handler: async (request: ActionRequest, _response: unknown, context: ActionContext) => {
      const q = request.query ?? {};
      const filters = Object.fromEntries(
        ['status', 'city_id', 'account_id'].filter((k) => q[`filters.${k}`]).map((k) => [k, q[`filters.${k}`]]),
      );
      const run = await guarded(() =>
        ctx.services.exports.start(actorOf(context), { file_extension: ext, ...filters }),
      );
      return {
        redirectUrl: context.h.resourceUrl({ resourceId: 'export_runs' }),
        notice: {
          message: panelText(context, 'messages.exportQueued', { id: run.id, format: ext }),
          type: 'success' as const,
        },
      };
    },
  };
}

/**
 * What the products editor lists: the active products of the lead's account (a new lead: the account it is created
 * in) and, for a lead (`?id=`), its lines. Hidden: called by admin/components/products-editor.tsx.
 */
function productChoices(ctx: AppContext) {
  return {
    actionType: 'resource' as const,
    component: false as const,
    isVisible: false,
    isAccessible: allow('lead', 'view'),
    handler: async (request: ActionRequest, _response: unknown, context: ActionContext) => {
      const actor = actorOf(context);
      const id = Number(request.query?.id);
      // a new lead's: the account an admin chose on the form (a tenant's own, whatever the query says)
      const asked = Number(request.query?.account_id);
      const lead = id > 0 ? await guarded(() => ctx.services.leads.show(actor, { id })) : null;
      const account = lead?.account_id ?? targetAccount(actor, isRowId(asked) ? asked : undefined);
      const catalogue = await ctx.services.leads.activeProducts(account);
      const products = [...catalogue.values()]
        .map(({ sku, name, price }) => ({ sku, name, price }))
        .sort((a, b) => a.sku.localeCompare(b.sku));
      // the editor's lines are what it sends back: the stock figure of a show is not one of a line's fields
      const lines = (lead?.products ?? []).map(({ sku, name, quantity, price }) => ({ sku, name, quantity, price }));
      return { products, lines };
    },
  };
}

/** Which columns the list, filters, show page and form use. */
const LEAD_LAYOUT = {
  titleProperty: 'full_name',
  listProperties: ['reference', 'full_name', 'phone', 'city', 'status', 'created_at', 'account_id'],
  // one City filter: the city chosen from the list, the one an export takes along (city_id)
  // the source a lead came in by (a form, a shop), chosen from the account's lead sources
  filterProperties: ['reference', 'phone', 'full_name', 'status', 'city_id', 'source_id', 'created_at', 'account_id'],
  showProperties: [
    'reference',
    'status',
    'full_name',
    'phone',
    'customer_record',
    'city',
    'area',
    'address',
    'order_reference',
    'source_id',
    'products_table',
    'history_timeline',
    'custom_data',
    'action_date',
    'created_at',
    'updated_at',
    'account_id',
  ],
  editProperties: [
    'account_id',
    'phone',
    'full_name',
    'status',
    'action_date',
    'city_id',
    'area',
    'address',
    'products',
  ],
};

const leadProperties = (components: PanelComponents): Record<string, PropertyOptions> => ({
  ...accountChoiceProp,
  ...contactRecordProps(components),
  status: {
    availableValues: statusOptions('lead').filter((o) => (LEAD_STATUSES as readonly string[]).includes(o.value)),
    components: { list: components.statusBadge, show: components.statusBadge },
  },
  custom_data: { ...virtualText, components: { show: components.recordDetails } },
  // the customer of its phone, next to it (admin/resources/customer-view.ts)
  customer_record: { ...virtualText, components: { show: components.customerRecord } },
  // the city list's select, showing a typed city the list does not know (admin/components/city-choice.tsx)
  city_id: { components: { edit: components.cityChoice } },
  // not a column: the lead's product lines, edited by admin/components/products-editor.tsx
  products: {
    type: 'mixed' as const,
    isVisible: { list: false, filter: false, show: false, edit: true },
    components: { edit: components.productsEditor },
  },
  order_reference: {
    type: 'string',
    isVisible: { list: false, filter: false, show: true, edit: false },
    components: { show: components.noWrap },
  },
  import_run_id: { isVisible: hidden },
  import_row: { isVisible: hidden },
  created_by_user_id: { isVisible: hidden },
  created_by_token_id: { isVisible: hidden },
});

/** New, edit, delete and bulk delete: the lead services, as the dashboard's. */
function leadWrites(ctx: AppContext) {
  const { services } = ctx;
  return serviceActions('lead', {
    create: async (actor, p) =>
      services.leads.createOne(actor, {
        ...chosen(actor, p),
        name: text(p.phone),
        status: String(p.status ?? 'new'),
        full_name: p.full_name as string,
        city_id: p.city_id ? Number(p.city_id) : undefined,
        area: p.area as string,
        address: p.address as string,
        action_date: toActionDate(p.action_date),
        products: p.products as ProductLineInput[] | undefined,
      }),
    update: (actor, id, p) =>
      services.leads.update(actor, id, {
        status: text(p.status),
        full_name: text(p.full_name),
        phone: text(p.phone),
        city_id: p.city_id ? Number(p.city_id) : null,
        area: (p.area as string) ?? null,
        address: (p.address as string) ?? null,
        action_date: toActionDate(p.action_date) ?? null,
        products: p.products as ProductLineInput[] | undefined,
      }),
    remove: (actor, ids) => services.leads.deleteMany(actor, { ids }, 'ids'),
    aliases: { name: 'phone' },
    createdNotice: (l, t) => t('messages.leadCreated', { reference: String(l.reference) }),
  });
}

export function leadResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  return {
    resource: ctx.models.Lead,
    options: {
      navigation: nav.leads,
      ...LEAD_LAYOUT,
      sort: { sortBy: 'created_at', direction: 'desc' },
      properties: leadProperties(components),
      actions: {
        ...tenantReadActions('lead'),
        show: withCustomerRecord(timelineShow('lead', ctx), ctx),
        // the lead's free-text city chosen in the edit form's City select (admin/resources/lead-city.ts)
        ...withCityOnForm(leadWrites(ctx), ctx),
        productChoices: productChoices(ctx),
        exportCsv: transferAction(ctx, 'csv', components.confirmAction),
        exportXlsx: transferAction(ctx, 'xlsx', components.confirmAction),
        importFile: importFileAction(ctx, components.importFile),
      },
    },
  };
}
