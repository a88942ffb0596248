import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ComponentLoader } from 'adminjs';

/** The panel's own React components: the name AdminJS knows each by → its source file under admin/components/. */
export const COMPONENT_SOURCES = {
  LeadFlowDashboard: 'dashboard.tsx',
  LeavePanel: 'leave-panel.tsx',
  ConfirmAction: 'confirm-action.tsx',
  StatusBadge: 'status-badge.tsx',
  NoWrap: 'no-wrap.tsx',
  RecordDetails: 'record-details.tsx',
  QueuePage: 'queue-page.tsx',
  StockPage: 'stock-page.tsx',
  KpiPage: 'kpi-page.tsx',
  ProgressBar: 'progress-bar.tsx',
  ProductsEditor: 'products-editor.tsx',
  ZonedTime: 'zoned-time.tsx',
  AdminChoice: 'admin-choice.tsx',
  CreateForm: 'create-form.tsx',
  AccountPage: 'account-page.tsx',
  ValueList: 'value-list.tsx',
  BulkDelete: 'bulk-delete.tsx',
  CustomerRecord: 'customer-record.tsx',
  CustomerCells: 'customer-cells.tsx',
  SourceParts: 'source-parts.tsx',
  PushConfirm: 'push-confirm.tsx',
  OrderWarehouse: 'order-warehouse.tsx',
  ScopeChecks: 'scope-checks.tsx',
  ImportFile: 'import-file.tsx',
  CityChoice: 'city-choice.tsx',
} as const;
export type ComponentName = keyof typeof COMPONENT_SOURCES;

/**
 * AdminJS's own components the panel replaces (by AdminJS's name): the top bar's version line becomes the language
 * sync (admin/components/language-sync.tsx), which saves the language menu's choice on the user.
 */
export const COMPONENT_OVERRIDES = {
  Version: 'language-sync.tsx',
} as const;

/**
 * Where `npm run build` leaves the components bundled for the browser: beside the compiled panel code
 * (dist/admin/components-bundle/). Run from the sources (tsx), nothing is there and AdminJS bundles them itself.
 */
export const PREBUILT_BUNDLE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'components-bundle');

/**
 * Tells AdminJS where its components bundle is, before its modules load (it reads the folder once, at import).
 * A prebuilt bundle is served as it is (ADMIN_JS_SKIP_BUNDLE: no rollup or babel at start, and nothing is written, so
 * dist/ may be read-only); otherwise AdminJS bundles the sources under DATA_DIR/.adminjs (or ADMIN_JS_TMP_DIR).
 */
export function choosePanelBundle(dataDir: string): { prebuilt: boolean } {
  // a bundle made beforehand for this process (the test runner makes one for all its shards), named by AdminJS's own
  // variables: served as it is, like the build's
  const given = process.env.ADMIN_JS_TMP_DIR;
  if (process.env.ADMIN_JS_SKIP_BUNDLE === 'true' && given && fs.existsSync(path.join(given, 'bundle.js')))
    return { prebuilt: true };
  if (fs.existsSync(path.join(PREBUILT_BUNDLE_DIR, 'bundle.js'))) {
    process.env.ADMIN_JS_TMP_DIR = PREBUILT_BUNDLE_DIR;
    process.env.ADMIN_JS_SKIP_BUNDLE = 'true';
    return { prebuilt: true };
  }
  process.env.ADMIN_JS_TMP_DIR ??= path.join(dataDir, '.adminjs');
  return { prebuilt: false };
}

/** Registers every component with its source, for AdminJS to bundle (absolute paths: it resolves from its caller). */
export function addComponentSources(loader: ComponentLoader, sourceDir: string): void {
  for (const [name, file] of Object.entries(COMPONENT_SOURCES)) loader.add(name, path.join(sourceDir, file));
  for (const [name, file] of Object.entries(COMPONENT_OVERRIDES)) loader.override(name, path.join(sourceDir, file));
}
