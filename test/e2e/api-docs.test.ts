import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { OPERATIONS } from '../../api/openapi-operations.js';
import { ARTIFACTS, shot, useBrowser } from './browser.js';

/** The viewport of docs/images/api-docs.png (docs/api.md). */
const VIEWPORT = { width: 1366, height: 900 };

describe('API reference (/api/docs) in Chromium', function () {
  this.timeout(120_000);
  const app = useBrowser();

  it('When someone opens /api/docs, Then Swagger UI renders every operation, with examples, from this origin only and without a CSP violation', async () => {
    const context = await app.browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const origin = new URL(app.url).origin;
    const elsewhere: string[] = [];
    const violations: string[] = [];
    const failures: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== origin) elsewhere.push(r.url());
    });
    page.on('console', (m) => {
      if (/Refused to|Content.Security.Policy/i.test(m.text())) violations.push(m.text());
      else if (m.type() === 'error') failures.push(m.text());
    });
    page.on('pageerror', (e) => failures.push(e.message));
    page.on('response', (r) => r.status() >= 400 && failures.push(`${r.status()} ${r.url()}`));
    await page.exposeFunction('__cspViolation', (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { __cspViolation(v: string): void }).__cspViolation(
          `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
        ),
      );
    });

    const res = await page.goto(`${app.url}/api/docs`);
    expect(res!.headers()['content-security-policy']).to.include("script-src 'self'");
    await page.waitForSelector('.opblock', { timeout: 60_000 });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim().toLowerCase();
        const p = b.querySelector('.opblock-summary-path')?.getAttribute('data-path');
        return `${method} ${p}`;
      }),
    );
    const documented = OPERATIONS.map((o) => `${o.method} ${o.path}`);
    expect(shown).to.include.members([...documented, 'post /shipping/{code}/callback']);
    expect(await page.textContent('.info')).to.match(/60 requests per minute/);

    // an operation opened: its scope, its example request (curl and body) and its example answer are on the page
    const put = '.opblock-put:has([data-path="/leads"])';
    await page.click(`${put} .opblock-summary`);
    await page.waitForSelector(`${put}.is-open .responses-wrapper`);
    const opened = (await page.textContent(`${put}.is-open`))!;
    expect(opened).to.include('Scope: UPDATE LEADS');
    expect(opened).to.include('curl -X PUT');
    expect(opened).to.include('"order_reference"');
    expect(opened).to.include('leads updated.');
    for (const status of ['401', '403', '422', '429', '500']) expect(opened).to.include(status);
    await page.locator(`${put} .opblock-summary`).scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, -60));
    await shot(page, 'api-docs', { fullPage: false });

    expect(elsewhere, 'requests to another origin').to.deep.equal([]);
    expect(violations, 'CSP violations').to.deep.equal([]);
    expect(failures, 'page errors').to.deep.equal([]);
    expect(fs.existsSync(path.join(ARTIFACTS, 'api-docs.png'))).to.equal(true);
    await context.close();
  });
});
