import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeFilledAccount, type FilledAccount } from '../factories.js';
import { login } from '../session.js';
import { loginAs, useBrowser } from './browser.js';

/** What the browser reports when the policy blocks something: console "Refused to …" and violation events. */
async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/Refused to|Content.Security.Policy/i.test(m.text())) seen.push(`${page.url()}: ${m.text()}`);
  });
  await page.exposeFunction('__cspViolation', (v: string) => seen.push(`${page.url()}: ${v}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { __cspViolation(v: string): void }).__cspViolation(
        `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
      ),
    );
  });
  return seen;
}

/**
 * `settle()`: the page loaded and no request of its in flight for 100 ms (5 s at most). A blocked load is reported when
 * it is tried, so a quiet page has nothing left to report; networkidle waits 500 ms more on every page.
 */
function quietNetwork(page: Page): () => Promise<void> {
  let inFlight = 0;
  let last = Date.now();
  const count = (d: number) => () => {
    inFlight += d;
    last = Date.now();
  };
  page.on('request', count(1));
  page.on('requestfinished', count(-1));
  page.on('requestfailed', count(-1));
  return async () => {
    await page.waitForLoadState('load');
    const end = Date.now() + 5000;
    while ((inFlight > 0 || Date.now() - last < 100) && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  };
}

describe('Content-Security-Policy in Chromium: login, reset, API docs, every panel page, KPI charts', function () {
  this.timeout(300_000);
  const app = useBrowser();
  let acc: FilledAccount;

  before(async () => {
    acc = await makeFilledAccount(getCtx(), 'csp');
    // the first request for the components bundle bundles them (a minute on 2 cores): not the pages' time
    const warm = await login(app.url, acc.seller.email, acc.seller.password);
    await (await warm.fetch('/admin/frontend/assets/components.bundle.js')).text();
  });

  it('When a seller uses the pages, Then every HTML answer carries the policy, everything works and nothing is refused', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1366, height: 800 } });
    const page = await context.newPage();
    const violations = await watchViolations(page);
    const settle = quietNetwork(page);
    const policies = new Map<string, string>();
    page.on('response', async (r) => {
      if ((r.headers()['content-type'] ?? '').startsWith('text/html'))
        policies.set(new URL(r.url()).pathname, r.headers()['content-security-policy'] ?? '');
    });

    for (const path of ['/api/docs', '/reset-password', '/reset-password/not-a-live-token']) {
      await page.goto(`${app.url}${path}`);
      await settle();
    }
    await loginAs(page, app.url, acc.seller.email, acc.seller.password);
    // the dashboard, drawn by the bundle: a blocked script or style would leave the root empty
    await page.waitForSelector('[data-css="sidebar"], nav', { timeout: 30_000 });

    await page.goto(`${app.url}/admin/pages/kpi`);
    await page.waitForSelector('canvas', { timeout: 30_000 });
    await page.goto(`${app.url}/admin/pages/queue`);
    await page.waitForSelector('[data-testid=queue-counts]');

    const { builtPanel } = await import('../../admin/admin.js');
    const shown: string[] = [];
    for (const resource of builtPanel()!.resources) {
      await page.goto(`${app.url}/admin/resources/${resource.id()}`);
      await page.waitForSelector('table, [data-css$="no-records"], section', { timeout: 30_000 });
      await settle();
      const links = page.locator('tbody tr a[href*="/show"]');
      const show = (await links.count()) ? await links.first().getAttribute('href') : null;
      if (show) {
        shown.push(resource.id());
        await page.goto(`${app.url}${show}`);
        await settle();
      }
    }
    await page.goto(`${app.url}/leads/import`);
    await settle();
    await context.close();

    const distinct = [...new Set(violations.map((v) => v.replace(/^[^:]+:\/\/[^/]+/, '').slice(0, 300)))];
    expect(distinct.slice(0, 20).join('\n')).to.equal('');
    expect(shown).to.include.members(['leads', 'orders', 'shipping_companies', 'webhook_endpoints']);
    expect(policies.size).to.be.greaterThan(5);
    for (const [path, policy] of policies) {
      const d = Object.fromEntries(policy.split(';').map((s) => [s.trim().split(' ')[0], s.trim()]));
      expect(d['script-src'], path)
        .to.match(/^script-src 'self' 'nonce-[^']+'/)
        .and.not.include('unsafe');
      expect(d['style-src'], path)
        .to.match(/^style-src 'self' 'nonce-[^']+'/)
        .and.not.include('unsafe');
      expect(d['style-src-attr'], path).to.equal(
        `style-src-attr ${path.startsWith('/admin') ? "'unsafe-inline'" : "'none'"}`,
      );
      expect(d['object-src'], path).to.equal("object-src 'none'");
      expect(d['frame-ancestors'], path).to.equal("frame-ancestors 'none'");
    }
  });

  it('When a user name closes the panel state script and opens its own, Then that script does not run and the panel works', async () => {
    const ctx = getCtx();
    const name = '</script><script>window.__pwned = 1</script><style>body{display:none}</style>';
    await ctx.models.User.update({ name }, { where: { id: acc.agent.id } });
    const context = await app.browser.newContext();
    const page = await context.newPage();
    const violations = await watchViolations(page);
    await loginAs(page, app.url, acc.agent.email, acc.agent.password);
    await page.waitForSelector('[data-css="sidebar"], nav', { timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).to.equal(undefined);
    expect(await page.isVisible('body')).to.equal(true);
    await context.close();
    expect(violations).to.deep.equal([]);
  });
});
