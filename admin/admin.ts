import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AdminJSExpress from '@adminjs/express';
import * as AdminJSSequelize from '@adminjs/sequelize';
import AdminJS, {
  ComponentLoader,
  type ActionContext,
  type ActionRequest,
  type ActionResponse,
  type ResourceWithOptions,
} from 'adminjs';
import express, { type RequestHandler, type Router } from 'express';
import { SCOPES } from '../src/actor.js';
import type { AppContext } from '../src/context.js';
import { LEAD_STATUSES } from '../src/leads/lead.model.js';
import { ORDER_STATUSES } from '../src/orders/order.model.js';
import { isSystemWide } from '../src/policy.js';
import {
  actorOf,
  allow,
  guarded,
  lockDown,
  serviceActions,
  tenantReadActions,
  toActionDate,
  type PanelAdmin,
} from './resources/panel-kit.js';
import { ScopedResource } from './resources/scoped-resource.js';

/** Components are bundled from their TypeScript sources (absolute paths: AdminJS resolves relative to the caller). */
const SOURCE_DIR = path.dirname(fileURLToPath(import.meta.url));

AdminJS.registerAdapter({ Database: AdminJSSequelize.Database, Resource: ScopedResource });

const nav = {
  leads: { name: 'Leads', icon: 'Users' },
  orders: { name: 'Orders', icon: 'ShoppingCart' },
  histories: { name: 'Histories', icon: 'Clock' },
  catalogue: { name: 'Catalogue', icon: 'Package' },
  settings: { name: 'Settings', icon: 'Settings' },
};
const hidden = { list: false, filter: false, show: false, edit: false };
const showOnly = { list: false, filter: false, show: true, edit: false };

/** AdminJS's refusal texts carry placeholders its notices never fill; these say the same without them. */
const REFUSALS = {
  forbiddenError: 'You are not allowed to do this.',
  anyForbiddenError: 'You are not allowed to do this.',
  error404Resource: 'This page does not exist.',
  error404Action: 'This action does not exist or you are not allowed to use it.',
  error404Record: 'This record does not exist or you are not allowed to see it.',
};

/** Status, products and the history timeline of a lead or order, as text on its show page. */
function timelineAfter(kind: 'lead' | 'order', ctx: AppContext) {
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

/** An export's list filters as text on its show page (the panel cannot show the JSON column itself). */
async function filtersAfter(response: ActionResponse): Promise<ActionResponse> {
  const params: Record<string, unknown> = response.record?.params ?? {};
  const pairs = Object.entries(params)
    .filter(([k]) => k.startsWith('filters.'))
    .map(([k, v]) => `${k.slice('filters.'.length)}: ${v}`);
  for (const k of Object.keys(params)) if (k === 'filters' || k.startsWith('filters.')) delete params[k];
  params.filters_summary = pairs.join('\n') || 'none (all leads)';
  return response;
}

/** Component ids of admin/components, as the panel's ComponentLoader registered them. */
interface PanelComponents {
  leavePanel: string;
  confirmAction: string;
}

function resources(ctx: AppContext, components: PanelComponents): ResourceWithOptions[] {
  const m = ctx.models;
  const s = ctx.services;
  const accountProp = { account_id: { isVisible: { list: true, filter: true, show: true, edit: false } } };
  const virtualText = { type: 'textarea' as const, isVisible: showOnly };
  const list: ResourceWithOptions[] = [
    {
      resource: m.Lead,
      options: {
        navigation: nav.leads,
        titleProperty: 'full_name',
        listProperties: ['reference', 'full_name', 'phone', 'city', 'status', 'created_at', 'account_id'],
        filterProperties: ['reference', 'phone', 'full_name', 'city', 'status', 'city_id', 'created_at', 'account_id'],
        showProperties: [
          'reference',
          'status',
          'action_date',
          'full_name',
          'phone',
          'city',
          'area',
          'address',
          'total',
          'products_summary',
          'custom_data',
          'history_timeline',
          'created_at',
          'updated_at',
          'account_id',
        ],
        editProperties: ['phone', 'full_name', 'status', 'action_date', 'city_id', 'area', 'address'],
        properties: {
          ...accountProp,
          status: { availableValues: LEAD_STATUSES.map((v) => ({ value: v, label: v.replace('_', ' ') })) },
          action_date: { type: 'string', description: 'Required for call later, e.g. 2026-12-01T14:30:00+01:00' },
          products_summary: virtualText,
          custom_data: virtualText,
          history_timeline: virtualText,
          phone_normalized: { isVisible: hidden },
          data: { isVisible: hidden },
          import_run_id: { isVisible: hidden },
          import_row: { isVisible: hidden },
          created_by_user_id: { isVisible: hidden },
          created_by_token_id: { isVisible: hidden },
        },
        actions: {
          ...tenantReadActions('lead'),
          show: { isAccessible: allow('lead', 'view'), after: timelineAfter('lead', ctx) as never },
          ...serviceActions('lead', {
            create: async (actor, p) =>
              s.leads.createOne(actor, {
                name: String(p.phone ?? ''),
                status: String(p.status ?? 'new'),
                full_name: p.full_name as string,
                city_id: p.city_id ? Number(p.city_id) : undefined,
                area: p.area as string,
                address: p.address as string,
                action_date: toActionDate(p.action_date),
              }),
            update: (actor, id, p) =>
              s.leads.update(actor, id, {
                status: String(p.status ?? ''),
                full_name: String(p.full_name ?? ''),
                phone: String(p.phone ?? ''),
                city_id: p.city_id ? Number(p.city_id) : null,
                area: (p.area as string) ?? null,
                address: (p.address as string) ?? null,
                action_date: toActionDate(p.action_date) ?? null,
              }),
            remove: (actor, ids) => s.leads.deleteMany(actor, { ids }, 'ids'),
            createdNotice: (l) => `Lead ${l.reference} created.`,
          }),
          exportCsv: transferAction(ctx, 'csv', components.confirmAction),
          exportXlsx: transferAction(ctx, 'xlsx', components.confirmAction),
          importFile: leavePanel(components.leavePanel, 'resource', '/leads/import', allow('lead', 'import'), 'Upload'),
        },
      },
    },
    {
      resource: m.Order,
      options: {
        navigation: nav.orders,
        titleProperty: 'full_name',
        listProperties: [
          'reference',
          'full_name',
          'phone',
          'city',
          'status',
          'tracking_number',
          'last_push_error',
          'created_at',
        ],
        filterProperties: [
          'reference',
          'phone',
          'full_name',
          'city',
          'status',
          'tracking_number',
          'created_at',
          'account_id',
        ],
        showProperties: [
          'reference',
          'lead_reference',
          'status',
          'full_name',
          'phone',
          'city',
          'area',
          'address',
          'total',
          'products_summary',
          'tracking_number',
          'push_state',
          'push_attempts',
          'last_push_error',
          'pushed_at',
          'history_timeline',
          'created_at',
          'account_id',
        ],
        editProperties: ['status', 'tracking_number'],
        properties: {
          ...accountProp,
          status: { availableValues: ORDER_STATUSES.map((v) => ({ value: v, label: v })) },
          products_summary: virtualText,
          history_timeline: virtualText,
          phone_normalized: { isVisible: hidden },
          data: { isVisible: hidden },
          lead_id: { isVisible: hidden },
          created_by_user_id: { isVisible: hidden },
        },
        actions: {
          ...tenantReadActions('order'),
          show: { isAccessible: allow('order', 'view'), after: timelineAfter('order', ctx) as never },
          ...serviceActions('order', {
            update: (actor, id, p) =>
              s.orders.updateStatuses(
                actor,
                {
                  orders: [
                    { id, status: p.status, ...(p.tracking_number ? { tracking_number: p.tracking_number } : {}) },
                  ],
                },
                'ids',
              ),
            remove: (actor, ids) => s.orders.deleteMany(actor, { ids }, 'ids'),
          }),
          pushToShipping: {
            actionType: 'bulk',
            icon: 'Truck',
            component: components.confirmAction,
            isAccessible: allow('order', 'update'),
            custom: { confirm: "Push the selected orders to the account's shipping company?" },
            handler: async (_request, _response, context) => {
              const records = context.records ?? [];
              const ids = records.map((r) => Number(r.id()));
              const result = await guarded(() => s.orders.push(actorOf(context), { ids }, 'ids'));
              return {
                records: records.map((r) => r.toJSON(context.currentAdmin)),
                redirectUrl: context.h.resourceUrl({ resourceId: 'orders' }),
                notice: { message: `${result.queued} orders queued for ${result.company}.`, type: 'success' },
              };
            },
          },
        },
      },
    },
    {
      resource: m.LeadHistory,
      options: {
        navigation: nav.histories,
        properties: { ...accountProp, lead_id: { isVisible: hidden }, changed_by_user_id: { isVisible: hidden } },
        sort: { sortBy: 'changed_at', direction: 'desc' },
        actions: { ...tenantReadActions('leadHistory'), ...serviceActions('leadHistory', {}) },
      },
    },
    {
      resource: m.OrderHistory,
      options: {
        navigation: nav.histories,
        properties: { ...accountProp, order_id: { isVisible: hidden }, changed_by_user_id: { isVisible: hidden } },
        sort: { sortBy: 'changed_at', direction: 'desc' },
        actions: { ...tenantReadActions('orderHistory'), ...serviceActions('orderHistory', {}) },
      },
    },
    {
      resource: m.Product,
      options: {
        navigation: nav.catalogue,
        listProperties: ['sku', 'name', 'price', 'active', 'account_id'],
        editProperties: ['sku', 'name', 'price', 'active'],
        properties: { ...accountProp },
        actions: {
          ...tenantReadActions('product'),
          ...serviceActions('product', {
            create: (actor, p) =>
              s.catalogue.createProduct(actor, {
                sku: String(p.sku ?? ''),
                name: String(p.name ?? ''),
                price: Number(p.price),
                active: p.active !== 'false' && p.active !== false,
              }),
            update: (actor, id, p) =>
              s.catalogue.updateProduct(actor, id, {
                sku: p.sku as string,
                name: p.name as string,
                price: p.price === undefined ? undefined : Number(p.price),
                active: p.active === undefined ? undefined : p.active === true || p.active === 'true',
              }),
          }),
        },
      },
    },
    {
      resource: m.City,
      options: {
        navigation: nav.catalogue,
        listProperties: ['name'],
        editProperties: ['name'],
        actions: {
          list: { isAccessible: allow('city', 'viewAny') },
          show: { isAccessible: allow('city', 'view') },
          ...serviceActions('city', { create: (actor, p) => s.catalogue.createCity(actor, String(p.name ?? '')) }),
        },
      },
    },
    {
      resource: m.User,
      options: {
        navigation: nav.settings,
        listProperties: ['name', 'email', 'role', 'active', 'account_id'],
        editProperties: ['name', 'email', 'role', 'password', 'active'],
        properties: {
          ...accountProp,
          password_hash: { isVisible: hidden },
          password: { type: 'password', isVisible: { list: false, filter: false, show: false, edit: true } },
          role: { availableValues: ['seller', 'agent', 'admin'].map((v) => ({ value: v, label: v })) },
        },
        actions: {
          ...tenantReadActions('user'),
          ...serviceActions('user', {
            create: (actor, p) =>
              s.accounts.createUser(actor, {
                account_id: isSystemWide(actor) && p.account_id ? Number(p.account_id) : (actor.accountId as number),
                role: p.role as 'agent',
                email: String(p.email ?? ''),
                password: String(p.password ?? ''),
                name: String(p.name ?? ''),
              }),
            update: (actor, id, p) =>
              s.accounts.updateUser(actor, id, {
                name: p.name as string,
                email: p.email as string,
                role: p.role as 'agent',
                ...(p.password ? { password: String(p.password) } : {}),
                ...(p.active !== undefined ? { active: p.active === true || p.active === 'true' } : {}),
              }),
            remove: (actor, ids) => s.accounts.deleteUsers(actor, ids),
          }),
        },
      },
    },
    {
      resource: m.Account,
      options: {
        navigation: nav.settings,
        listProperties: ['id', 'name', 'created_at'],
        editProperties: ['name'],
        actions: {
          ...tenantReadActions('account'),
          ...serviceActions('account', {
            create: (actor, p) => s.accounts.createAccount(actor, { name: String(p.name ?? '') }),
          }),
        },
      },
    },
    {
      resource: m.ApiToken,
      options: {
        navigation: nav.settings,
        listProperties: ['name', 'scopes', 'last_used_at', 'expires_at', 'created_at', 'account_id'],
        showProperties: ['name', 'scopes', 'last_used_at', 'expires_at', 'created_at', 'user_id', 'account_id'],
        editProperties: ['name', 'scopes', 'expires_at'],
        properties: {
          ...accountProp,
          token_hash: { isVisible: hidden },
          scopes: { isArray: true, availableValues: SCOPES.map((v) => ({ value: v, label: v })) },
          expires_at: { type: 'string', description: 'Optional, e.g. 2027-01-01' },
        },
        actions: {
          ...tenantReadActions('token'),
          ...serviceActions('token', {
            create: (actor, p) =>
              s.tokens.createToken(actor, {
                name: String(p.name ?? ''),
                scopes: (p.scopes as never[]) ?? [],
                ...(p.expires_at ? { expires_at: String(p.expires_at) } : {}),
              }),
            remove: (actor, ids) => s.tokens.revokeTokens(actor, ids),
            createdNotice: (t) => `Copy this API key now, it will not be shown again: ${t.token}`,
          }),
        },
      },
    },
    {
      resource: m.ShippingCompany,
      options: {
        navigation: nav.settings,
        listProperties: ['code', 'name', 'endpoint_url', 'active', 'account_id'],
        showProperties: [
          'code',
          'name',
          'adapter',
          'endpoint_url',
          'timeout_ms',
          'active',
          'api_key_state',
          'hmac_secret_state',
          'account_id',
        ],
        editProperties: ['code', 'name', 'endpoint_url', 'api_key', 'hmac_secret', 'timeout_ms', 'active'],
        properties: {
          ...accountProp,
          hmac_secret: {
            type: 'password',
            description:
              'Write-only. Leave empty to keep the current secret (on creation: to generate one, shown once).',
          },
          api_key: { type: 'password', description: 'Write-only. Leave empty to keep the current key.' },
          api_key_state: { type: 'string', isVisible: showOnly },
          hmac_secret_state: { type: 'string', isVisible: showOnly },
        },
        actions: {
          ...tenantReadActions('shippingCompany'),
          ...serviceActions('shippingCompany', {
            create: (actor, p) =>
              s.shipping.createCompany(actor, { ...pick(p, COMPANY_FIELDS), ...companyValues(p) } as never),
            update: (actor, id, p) =>
              s.shipping.updateCompany(actor, id, { ...pick(p, COMPANY_FIELDS), ...companyValues(p) } as never),
            createdNotice: (c) =>
              c.hmac_secret ? `Copy the HMAC secret now, it will not be shown again: ${c.hmac_secret}` : 'Created.',
          }),
        },
      },
    },
    {
      resource: m.ImportRun,
      options: {
        navigation: nav.leads,
        listProperties: ['id', 'file_name', 'status', 'rows_read', 'rows_written', 'rows_failed', 'created_at'],
        properties: { ...accountProp, file_path: { isVisible: hidden }, cursor_row: { isVisible: hidden } },
        sort: { sortBy: 'created_at', direction: 'desc' },
        actions: {
          ...tenantReadActions('importRun'),
          ...serviceActions('importRun', {}),
          errorReport: leavePanel(components.leavePanel, 'record', '/imports/{id}/report', allow('importRun', 'view')),
        },
      },
    },
    {
      resource: m.ExportRun,
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
    },
  ];
  return list;
}

const COMPANY_FIELDS = ['code', 'name', 'endpoint_url', 'api_key', 'hmac_secret', 'timeout_ms', 'active'];

function pick(p: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]]));
}

/** Form strings of a shipping company's number and flag → the service's types (other fields stay strings). */
function companyValues(p: Record<string, unknown>) {
  return {
    ...(p.timeout_ms !== undefined ? { timeout_ms: Number(p.timeout_ms) } : {}),
    ...(p.active !== undefined ? { active: p.active === true || p.active === 'true' } : {}),
  };
}

/** "Export" buttons on the leads list: the list's current filters go to the export job. */
function transferAction(ctx: AppContext, ext: 'csv' | 'xlsx', component: string) {
  return {
    actionType: 'resource' as const,
    icon: 'Download',
    component,
    showInDrawer: true,
    isAccessible: allow('lead', 'export'),
    custom: {
      confirm: `Export the leads of this list (its status, city and account filters) as ${ext.toUpperCase()}?`,
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
          message: `Export #${run.id} (${ext}) queued; it appears in Export runs when ready.`,
          type: 'success' as const,
        },
      };
    },
  };
}

/** An action that loads a dashboard page or file (admin/components/leave-panel.tsx); `{id}` is the record's id. */
function leavePanel(
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

let panel: { admin: AdminJS; router: Router } | null = null;

/** The AdminJS instance once built (tests walk its resources and actions, so new ones are covered). */
export function builtPanel(): AdminJS | null {
  return panel?.admin ?? null;
}

/** The AdminJS panel, built once per process; AdminJS bundles its components offline under DATA_DIR. */
export async function buildPanelRouter(ctx: AppContext): Promise<Router> {
  if (!panel) {
    // A bundle left by an earlier version would be served as is: drop it so the first page load bundles afresh.
    fs.rmSync(path.join(process.env.ADMIN_JS_TMP_DIR ?? '.adminjs', 'bundle.js'), { force: true });
    const componentLoader = new ComponentLoader();
    const Dashboard = componentLoader.add('LeadFlowDashboard', path.join(SOURCE_DIR, 'components', 'dashboard.tsx'));
    const components: PanelComponents = {
      leavePanel: componentLoader.add('LeavePanel', path.join(SOURCE_DIR, 'components', 'leave-panel.tsx')),
      confirmAction: componentLoader.add('ConfirmAction', path.join(SOURCE_DIR, 'components', 'confirm-action.tsx')),
    };
    const admin = new AdminJS({
      rootPath: '/admin',
      componentLoader,
      dashboard: {
        component: Dashboard,
        handler: async (_req, _res, context) =>
          ctx.services.stats.dashboard(actorOf(context as unknown as ActionContext)),
      },
      loginPath: '/login',
      logoutPath: '/admin/logout',
      resources: lockDown(resources(ctx, components)),
      branding: { companyName: 'LeadFlow', withMadeWithLove: false, logo: false },
      locale: {
        language: 'en',
        translations: {
          en: {
            labels: {
              leads: 'Leads',
              orders: 'Orders',
              lead_histories: 'Lead histories',
              order_histories: 'Order histories',
              products: 'Products',
              cities: 'Cities',
              users: 'Users',
              accounts: 'Accounts',
              api_tokens: 'API keys',
              shipping_companies: 'Shipping companies',
              import_runs: 'Import runs',
              export_runs: 'Export runs',
            },
            actions: {
              exportCsv: 'Export CSV',
              exportXlsx: 'Export Excel',
              importFile: 'Import file',
              pushToShipping: 'Push to shipping company',
              errorReport: 'Error report',
              download: 'Download',
            },
            messages: REFUSALS,
          },
        },
      },
    });
    // buildRouter starts the component bundling in the background, so it never delays start-up.
    panel = { admin, router: AdminJSExpress.buildRouter(admin) };
  }
  const outer = express.Router();
  outer.use(panelSession, sameOriginWrites, knownActions(panel.admin));
  outer.use(dropRemoteFonts);
  outer.use(panel.router);
  return outer;
}

const PANEL_API = new RegExp(
  '^/api/resources/([^/]+)/(?:actions/([^/]+)(?:/[^/]*)?|search/[^/]*|records/[^/]+/([^/]+)|bulk/([^/]+))/?$',
);

/**
 * AdminJS throws (a 500) on an unknown resource or action, an action called at another kind's address, or recordIds
 * given as a list or left out; those are answered "not found" before they reach it.
 */
function knownActions(admin: AdminJS): RequestHandler {
  return (req, res, next) => {
    const m = PANEL_API.exec(req.path);
    if (!m) return next();
    const [, resourceId, resourceAction, recordAction, bulkAction] = m;
    const resource = admin.resources.find((r) => r.id() === resourceId);
    const action = resource?.decorate().actions[resourceAction ?? recordAction ?? bulkAction ?? 'search'];
    const fits =
      !!action && (recordAction ? action.isRecordType() : bulkAction ? action.isBulkType() : action.isResourceType());
    if (fits && (!bulkAction || typeof req.query.recordIds === 'string')) return next();
    res.status(404).json({ message: 'Not found.' });
  };
}

/** The dashboard session's user becomes AdminJS's currentAdmin; no session → the one login page. */
const panelSession: RequestHandler = (req, res, next) => {
  if (req.path === '/logout') {
    res.redirect(303, '/login');
    return;
  }
  if (!req.user) {
    if (req.xhr || req.path.startsWith('/api/')) {
      res.status(401).json({ message: 'Unauthenticated.' });
      return;
    }
    res.redirect(302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    return;
  }
  const admin: PanelAdmin = {
    id: String(req.user.id),
    userId: req.user.id,
    email: req.user.email,
    title: req.user.name,
    role: req.user.role,
    accountId: req.user.account_id,
  };
  (req.session as unknown as { adminUser: PanelAdmin }).adminUser = admin;
  next();
};

/**
 * The panel's XHR writes cannot carry our CSRF token, so they must come from a page of this origin: browsers send
 * Origin (or Referer) with every POST, and a cross-site form or script cannot fake it. The session cookie is
 * SameSite=Lax too.
 */
const sameOriginWrites: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const source = req.get('origin') ?? req.get('referer');
  let host: string | null;
  try {
    host = source ? new URL(source).host : null;
  } catch {
    host = null;
  }
  if (host && host === req.get('host')) return next();
  res.status(403).json({ message: 'CSRF token mismatch.' });
};

/** AdminJS's page template links a Google Fonts stylesheet; the panel must not reach the network. */
const dropRemoteFonts: RequestHandler = (_req, res, next) => {
  const send = res.send.bind(res);
  res.send = ((body: unknown) =>
    send(
      typeof body === 'string' ? body.replace(/<link[^>]+fonts\.googleapis\.com[^>]*>/g, '') : body,
    )) as typeof res.send;
  next();
};
