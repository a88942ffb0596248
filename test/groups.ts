/**
 * Which test files run in which database mode (docs/testing.md). A mode is a database choice: `embedded` (the
 * embedded PostgreSQL under DATA_DIR) or `url` (a PostgreSQL server at DATABASE_URL). The first mode of a run runs every
 * file; a second mode runs only the `both` group: the files that can fail differently on another database (its SQL,
 * plans, triggers, locks and claims, migrations, the database's own behaviour, the start-up path of that mode). The
 * `once` group (unit tests, browser tests, the panel walk, HTTP behaviour, contract and wording checks) keeps the
 * database as storage behind the behaviour it checks. test/unit/test-groups.test.ts checks that every test file is in
 * exactly one group.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Mode = 'embedded' | 'url';

export const GROUPS = {
  once: [
    'test/e2e/admin-forms.test.ts',
    'test/e2e/api-docs.test.ts',
    'test/e2e/csp.test.ts',
    'test/e2e/customers.test.ts',
    'test/e2e/form-snippet.test.ts',
    'test/e2e/forms-times.test.ts',
    'test/e2e/i18n.test.ts',
    'test/e2e/kpi-speed.test.ts',
    'test/e2e/logout.test.ts',
    'test/e2e/panel-pages.test.ts',
    'test/e2e/stock-pages.test.ts',
    'test/e2e/panel-walk-ar.test.ts',
    'test/e2e/panel-walk-en.test.ts',
    'test/e2e/panel-walk-fr.test.ts',
    'test/e2e/panel-words.test.ts',
    'test/e2e/panel.test.ts',
    'test/e2e/sources-panel.test.ts',
    'test/integration/account-time-zone.test.ts',
    'test/integration/admin-forms.test.ts',
    'test/integration/api-key-presets.test.ts',
    'test/integration/bad-input.test.ts',
    'test/integration/blocklist-leads.test.ts',
    'test/integration/blocklist-panel.test.ts',
    'test/integration/blocklist-rest.test.ts',
    'test/integration/bodies-after-identity.test.ts',
    'test/integration/caps-budgets.test.ts',
    'test/integration/carrier-disclosure.test.ts',
    'test/integration/carrier-ssrf.test.ts',
    'test/integration/cash.test.ts',
    'test/integration/cli.test.ts',
    'test/integration/compiled.test.ts',
    'test/integration/credential-races.test.ts',
    'test/integration/csp-header.test.ts',
    'test/integration/customers-panel.test.ts',
    'test/integration/customers-webhooks.test.ts',
    'test/integration/dashboard-routes.test.ts',
    'test/integration/dashboard-session.test.ts',
    'test/integration/error-messages.test.ts',
    'test/integration/form-intake-limits.test.ts',
    'test/integration/form-intake.test.ts',
    'test/integration/deep-bodies.test.ts',
    'test/integration/fuzz.test.ts',
    'test/integration/idempotency.test.ts',
    'test/integration/import-page.test.ts',
    'test/integration/import-progress.test.ts',
    'test/integration/input-rules-panel.test.ts',
    'test/integration/input-rules.test.ts',
    'test/integration/intake-retention.test.ts',
    'test/integration/issue21-attack.test.ts',
    'test/integration/issue32-attack.test.ts',
    'test/integration/job-logs.test.ts',
    'test/integration/job-retention.test.ts',
    'test/integration/lead-edit-city.test.ts',
    'test/integration/lead-list-sources.test.ts',
    'test/integration/login-hardening.test.ts',
    'test/integration/login-invitations.test.ts',
    'test/integration/login-next.test.ts',
    'test/integration/observability.test.ts',
    'test/integration/openapi-contract.test.ts',
    'test/integration/openapi-routes.test.ts',
    'test/integration/orders.test.ts',
    'test/integration/outbound-address-space.test.ts',
    'test/integration/panel-findings.test.ts',
    'test/integration/panel-no-dead-ends.test.ts',
    'test/integration/panel-pages.test.ts',
    'test/integration/panel-assets.test.ts',
    'test/integration/panel-populated.test.ts',
    'test/integration/panel-push-carrier.test.ts',
    'test/integration/panel-refusals.test.ts',
    'test/integration/panel-scope.test.ts',
    'test/integration/panel-tenancy.test.ts',
    'test/integration/phone-e164.test.ts',
    'test/integration/private-files.test.ts',
    'test/integration/product-rule.test.ts',
    'test/integration/public-routes.test.ts',
    'test/integration/queue-fuzz.test.ts',
    'test/integration/queue-rest.test.ts',
    'test/integration/rest-rate-limit.test.ts',
    'test/integration/route-labels.test.ts',
    'test/integration/sessions-credentials.test.ts',
    'test/integration/signals.test.ts',
    'test/integration/source-health.test.ts',
    'test/integration/source-products-panel.test.ts',
    'test/integration/sources-panel.test.ts',
    'test/integration/sources-rest.test.ts',
    'test/integration/stats.test.ts',
    'test/integration/stock-count.test.ts',
    'test/integration/stock.test.ts',
    'test/integration/store-intake-refusals.test.ts',
    'test/integration/store-intake-shopify.test.ts',
    'test/integration/store-intake-woocommerce.test.ts',
    'test/integration/tenant-oracles.test.ts',
    'test/integration/uncallable-phones.test.ts',
    'test/integration/webhooks-attack.test.ts',
    'test/integration/webhooks-panel.test.ts',
    'test/integration/webhooks-rest.test.ts',
    'test/integration/webhooks-standard.test.ts',
    'test/integration/webhooks.test.ts',
    'test/unit/architecture.test.ts',
    'test/unit/customer-risk-findings.test.ts',
    'test/unit/delete-in-batches.test.ts',
    'test/unit/dependency-rules.test.ts',
    'test/unit/domain-events.test.ts',
    'test/unit/empty-value.test.ts',
    'test/unit/form-snippet.test.ts',
    'test/unit/idempotency-key.test.ts',
    'test/unit/input-rules.test.ts',
    'test/unit/locale-format.test.ts',
    'test/unit/locales.test.ts',
    'test/unit/logger.test.ts',
    'test/unit/openapi-document.test.ts',
    'test/unit/order-transitions.test.ts',
    'test/unit/panel-direction.test.ts',
    'test/unit/panel-form-errors.test.ts',
    'test/unit/panel-locale.test.ts',
    'test/unit/policy.test.ts',
    'test/unit/store-order.test.ts',
    'test/unit/test-groups.test.ts',
    'test/unit/transfers.test.ts',
    'test/unit/validation.test.ts',
  ],
  both: [
    'test/integration/backup-tampered.test.ts',
    'test/integration/backup.test.ts',
    'test/integration/customers-rules.test.ts',
    'test/integration/customers.test.ts',
    'test/integration/export-times.test.ts',
    'test/integration/first-start.test.ts',
    'test/integration/foundation.test.ts',
    'test/integration/handover.test.ts',
    'test/integration/idempotency-edges.test.ts',
    'test/integration/import-export.test.ts',
    'test/integration/kpi-speed.test.ts',
    'test/integration/kpi-time-zones.test.ts',
    'test/integration/kpi.test.ts',
    'test/integration/lead-parents.test.ts',
    'test/integration/list-pages.test.ts',
    'test/integration/lost-push.test.ts',
    'test/integration/queue-attack.test.ts',
    'test/integration/queue-give-backs.test.ts',
    'test/integration/queue-order.test.ts',
    'test/integration/queue-plans.test.ts',
    'test/integration/queue.test.ts',
    'test/integration/reliability.test.ts',
    'test/integration/rest-leads.test.ts',
    'test/integration/row-counts.test.ts',
    'test/integration/startup.test.ts',
    'test/integration/stock-follows.test.ts',
    'test/integration/table-statistics.test.ts',
    'test/integration/token-cache.test.ts',
    'test/integration/webhooks-caps.test.ts',
    'test/integration/webhooks-event-log.test.ts',
    'test/integration/webhooks-fairness.test.ts',
    'test/integration/webhooks-worker.test.ts',
  ],
} as const;

const FOLDERS = ['test/unit', 'test/integration', 'test/e2e'];

/** Every test file of the suite (paths relative to the repository), found on disk. */
export function testFiles(root = process.cwd()): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.test.ts')) found.push(rel);
    }
  };
  for (const dir of FOLDERS) if (fs.existsSync(path.join(root, dir))) walk(dir);
  return found.sort();
}

/** The files a run's first mode runs (every file, unit first), or its second (the `both` group). */
export function filesOfMode(which: 'first' | 'second'): string[] {
  const order = (f: string) => FOLDERS.findIndex((dir) => f.startsWith(`${dir}/`));
  const files = which === 'first' ? testFiles() : [...GROUPS.both];
  return files.sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1));
}
