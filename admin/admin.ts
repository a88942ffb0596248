import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AdminJSExpress from '@adminjs/express';
import * as AdminJSSequelize from '@adminjs/sequelize';
import AdminJS, { ComponentLoader, type ActionContext, type ResourceWithOptions } from 'adminjs';
import express, { type Router } from 'express';
import type { AppContext } from '../src/app-context.js';
import { refuseUnfitBody } from '../http/input-guard.js';
import { addComponentSources, type ComponentName } from './panel-components.js';
import { panelFormBodies } from './panel-bodies.js';
import { dropRemoteFonts, knownActions, panelJsonBodies, panelSession, sameOriginWrites } from './panel-guards.js';
import { panelCsp } from './panel-csp.js';
import { hashedAssetLinks, panelAsset, panelCompression } from './panel-assets.js';
import { panelLocale } from './panel-locale.js';
import { PANEL_STYLESHEET, panelDirection } from './panel-rtl.js';
import { accountPageHandler } from './pages/account-page.js';
import { kpiPageHandler } from './pages/kpi-page.js';
import { queuePageHandler } from './pages/queue-page.js';
import { stockPageHandler } from './pages/stock-page.js';
import { blockedPhoneResource } from './resources/blocked-phone.resource.js';
import { accountResource } from './resources/account.resource.js';
import { apiTokenResource } from './resources/api-token.resource.js';
import { cityResource } from './resources/city.resource.js';
import { customerResource } from './resources/customer.resource.js';
import { exportRunResource } from './resources/export-run.resource.js';
import { importRunResource } from './resources/import-run.resource.js';
import { leadHistoryResource } from './resources/lead-history.resource.js';
import { leadResource } from './resources/lead.resource.js';
import { leadIntakeResource } from './resources/lead-intake.resource.js';
import { leadSourceResource } from './resources/lead-source.resource.js';
import { orderHistoryResource } from './resources/order-history.resource.js';
import { orderResource } from './resources/order.resource.js';
import { actorOf, lockDown } from './resources/panel-kit.js';
import { presentable, type PanelComponents } from './resources/panel-ui.js';
import { zonedTimes } from './resources/panel-times.js';
import { productResource } from './resources/product.resource.js';
import { ScopedResource } from './resources/scoped-resource.js';
import { shippingCompanyResource } from './resources/shipping-company.resource.js';
import { userResource } from './resources/user.resource.js';
import { webhookDeliveryResource } from './resources/webhook-delivery.resource.js';
import { webhookEndpointResource } from './resources/webhook-endpoint.resource.js';

/** The components' TypeScript sources, which AdminJS bundles when no prebuilt bundle is there (run from sources). */
const COMPONENTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'components');

AdminJS.registerAdapter({ Database: AdminJSSequelize.Database, Resource: ScopedResource });

/** Every panel resource, one file each under admin/resources/; the panel lists them in this order. */
function resources(ctx: AppContext, components: PanelComponents): ResourceWithOptions[] {
  return [
    leadResource(ctx, components),
    orderResource(ctx, components),
    customerResource(ctx, components),
    leadHistoryResource(ctx, components),
    orderHistoryResource(ctx, components),
    productResource(ctx),
    cityResource(ctx),
    userResource(ctx),
    accountResource(ctx),
    apiTokenResource(ctx, components),
    shippingCompanyResource(ctx),
    importRunResource(ctx, components),
    exportRunResource(ctx, components),
    webhookEndpointResource(ctx, components),
    webhookDeliveryResource(ctx, components),
    blockedPhoneResource(ctx, components),
    leadSourceResource(ctx, components),
    leadIntakeResource(ctx, components),
  ];
}

let panel: { admin: AdminJS; router: Router } | null = null;

/** The AdminJS instance once built (tests walk its resources and actions, so new ones are covered). */
export function builtPanel(): AdminJS | null {
  return panel?.admin ?? null;
}

/**
 * The AdminJS panel, built once per process. Its components come bundled by `npm run build` (`prebuilt`), or AdminJS
 * bundles them from their sources under DATA_DIR (admin/panel-components.ts chose before AdminJS loaded).
 */
export async function buildPanelRouter(ctx: AppContext, bundle: { prebuilt: boolean }): Promise<Router> {
  if (!panel) {
    const componentLoader = new ComponentLoader();
    if (!bundle.prebuilt) {
      // A bundle left by an earlier version would be served as is: drop it so the first page load bundles afresh.
      fs.rmSync(path.join(process.env.ADMIN_JS_TMP_DIR ?? '.adminjs', 'bundle.js'), { force: true });
      addComponentSources(componentLoader, COMPONENTS_DIR);
    }
    // Options name components; the browser finds them in the bundle by these names.
    const component = (name: ComponentName) => name;
    const components: PanelComponents = {
      leavePanel: component('LeavePanel'),
      confirmAction: component('ConfirmAction'),
      statusBadge: component('StatusBadge'),
      noWrap: component('NoWrap'),
      recordDetails: component('RecordDetails'),
      progressBar: component('ProgressBar'),
      productsEditor: component('ProductsEditor'),
      zonedTime: component('ZonedTime'),
      valueList: component('ValueList'),
      bulkDelete: component('BulkDelete'),
      customerRecord: component('CustomerRecord'),
      customerCells: component('CustomerCells'),
      sourceParts: component('SourceParts'),
      pushConfirm: component('PushConfirm'),
      orderWarehouse: component('OrderWarehouse'),
      scopeChecks: component('ScopeChecks'),
      importFile: component('ImportFile'),
      cityChoice: component('CityChoice'),
    };
    const admin = new AdminJS({
      rootPath: '/admin',
      componentLoader,
      dashboard: {
        component: component('LeadFlowDashboard'),
        handler: async (_req, _res, context) =>
          ctx.services.stats.dashboard(actorOf(context as unknown as ActionContext)),
      },
      pages: {
        queue: { component: component('QueuePage'), icon: 'PhoneCall', handler: queuePageHandler(ctx) },
        kpi: { component: component('KpiPage'), icon: 'BarChart2', handler: kpiPageHandler(ctx) },
        stock: { component: component('StockPage'), icon: 'Package', handler: stockPageHandler(ctx) },
        // the signed-in user's own account settings and profile (docs/operations.md promises sellers the path)
        account: { component: component('AccountPage'), icon: 'Settings', handler: accountPageHandler },
      },
      loginPath: '/login',
      // the top bar's Log out navigates here; GET /logout ends the session when the click came from this site
      logoutPath: '/logout',
      resources: lockDown(zonedTimes(presentable(resources(ctx, components), components), components.zonedTime)),
      branding: { companyName: 'LeadFlow', withMadeWithLove: false, logo: false },
      // each user's language (admin/panel-guards.ts puts it on currentAdmin)
      locale: (currentAdmin) => panelLocale(currentAdmin),
      assets: { styles: [PANEL_STYLESHEET] },
    });
    // Without a prebuilt bundle, buildRouter bundles in the background in production (elsewhere the first page load
    // does), so bundling never delays start-up.
    // panelFormBodies reads every body first; should formidable ever see one, it may keep no file part.
    panel = { admin, router: AdminJSExpress.buildRouter(admin, null, { maxFileSize: 1, maxFields: 1000 }) };
  }
  const outer = express.Router();
  outer.use(panelSession, sameOriginWrites, knownActions(panel.admin), panelJsonBodies, panelFormBodies);
  outer.use(refuseUnfitBody); // prototype-named keys, bad text in a body: a 422 (http/input-guard.ts)
  outer.use(panelCompression, dropRemoteFonts, panelCsp, panelDirection, hashedAssetLinks);
  outer.get('/frontend/assets/:asset', panelAsset);
  outer.use(panel.router);
  return outer;
}
