import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { serveLocal, startTestServer } from '../helpers.js';
import { intakeOf, leadsOf, makeFormSource } from '../form-sources.js';
import { chromiumAvailable, CHROMIUM, launch, loginAs, shot } from './browser.js';
import { formSnippet } from '../../src/sources/form-snippet.js';

const PER_IP = 3;

describe('The form snippet in Chromium: a page on another origin posts to the app', function () {
  this.timeout(300_000);
  let app: Awaited<ReturnType<typeof startTestServer>>;
  let pages: Awaited<ReturnType<typeof serveLocal>>;
  let browser: Browser;
  let acc: TestAccount;
  const snippets = new Map<string, string>();
  // the app listens on 127.0.0.1, the seller's page is served as localhost: two origins
  const pageOrigin = () => `http://localhost:${pages.port}`;

  before(async function () {
    if (!chromiumAvailable()) {
      console.log(`      browser tests skipped: ${CHROMIUM} not found`);
      this.skip();
    }
    const ctx = getCtx();
    app = await startTestServer({
      ...ctx,
      config: { ...ctx.config, forms: { ...ctx.config.forms, ratePerIp: PER_IP, ratePerSource: 300 } },
    });
    pages = await serveLocal((req, res) => {
      const key = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
      const html = snippets.get(key);
      res.writeHead(html || key === 'thanks' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html ? `<!doctype html><html><body><h1>Summer offer</h1>${html}</body></html>` : 'thanks');
    });
    browser = await launch();
    acc = await makeAccount(ctx);
  });
  after(async () => {
    await browser?.close();
    await pages?.close();
    await app?.close();
  });

  async function landing(origins: string[]) {
    const source = await makeFormSource(acc.id, {
      origins,
      thankYou: `${pageOrigin()}/thanks`,
      products: [{ sku: acc.skus.active[0], quantity: 1 }],
    });
    snippets.set(source.public_key, formSnippet(source, app.url));
    return source;
  }

  async function fillAndSend(page: Page, key: string, phone: string, honeypot = '') {
    await page.goto(`${pageOrigin()}/${key}?utm_source=facebook&utm_campaign=summer`);
    await page.fill('#lf-full_name', 'Amina Benali');
    await page.fill('#lf-phone', phone);
    await page.fill('#lf-city', 'Casablanca');
    if (honeypot) await page.fill('#lf-website', honeypot);
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    return answer;
  }

  it('When a visitor fills and sends the form, Then the lead arrives with its utm and the browser lands on the thank-you page', async () => {
    const source = await landing([`${pageOrigin()}/`]);
    const page = await browser.newPage();
    await fillAndSend(page, source.public_key, '0612345678');
    expect(page.url()).to.equal(`${pageOrigin()}/thanks`);
    const [lead] = await leadsOf(getCtx(), source.id);
    expect(lead).to.include({ account_id: acc.id, phone: '0612345678', status: 'new', source_id: source.id });
    expect(lead.utm).to.deep.equal({ utm_source: 'facebook', utm_campaign: 'summer' });
    expect((await intakeOf(getCtx(), source.id))[0]).to.include({ outcome: 'created', origin: pageOrigin() });
    await page.close();
  });

  it('When the seller copies the snippet from the panel onto their page, Then a visitor’s lead arrives, the thank-you page opens and the panel’s intake log shows it created', async () => {
    const ctx = getCtx();
    const source = await ctx.services.sources.create(acc.seller.actor, {
      kind: 'form',
      name: 'Summer page',
      allowed_origins: [pageOrigin()],
      thank_you_url: `${pageOrigin()}/thanks`,
      default_products: [{ sku: acc.skus.active[0], quantity: 1 }],
    });
    const panel = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    panel.setDefaultTimeout(180_000); // the first panel page of a run may wait for AdminJS to bundle its components
    await loginAs(panel, app.url, acc.seller.email, acc.seller.password);
    await panel.goto(`${app.url}/admin/resources/lead_sources/records/${source.id}/show`);
    const snippet = (await panel.textContent('[data-testid="source-snippet"]'))!;
    await shot(panel, 'sources-show');
    // the snippet posts to the app's public address (APP_URL); the browser reaches the test server there
    const action = `${ctx.config.appUrl}/api/web/1.0/intake/forms/${source.public_key}`;
    expect(snippet).to.include(`action="${action}"`);
    snippets.set(source.public_key, snippet);
    const page = await browser.newPage();
    await page.route(`${action}`, async (route) =>
      route.fulfill({ response: await route.fetch({ url: `${app.url}${new URL(action).pathname}`, maxRedirects: 0 }) }),
    );

    await fillAndSend(page, source.public_key, '0612345690');

    expect(page.url()).to.equal(`${pageOrigin()}/thanks`);
    const [lead] = await leadsOf(ctx, source.id);
    expect(lead).to.include({ account_id: acc.id, phone: '0612345690', source_id: source.id });
    expect(lead.skus).to.deep.equal([acc.skus.active[0]]);
    await Promise.all([panel.waitForURL(/lead_intake/), panel.click('[data-testid="source-intake-log"]')]);
    const row = panel.locator('tr', { has: panel.locator('[data-status="created"]') });
    await row.first().waitFor();
    expect(await row.count()).to.equal(1);
    expect(await row.first().textContent())
      .to.include(lead.reference)
      .and.include('Summer page');
    await shot(panel, 'sources-intake-log');
    await page.close();
    await panel.close();
  });

  it('When the page is not an allowed origin, Then the visitor reads why, nothing is created and it is logged', async () => {
    const source = await landing(['https://shop.example']);
    const page = await browser.newPage();
    const answer = await fillAndSend(page, source.public_key, '0612345679');
    expect(answer!.status()).to.equal(403);
    expect(await page.textContent('main')).to.include('This page may not send to this form.');
    expect(await leadsOf(getCtx(), source.id)).to.have.length(0);
    expect((await intakeOf(getCtx(), source.id))[0]).to.include({ outcome: 'refused', origin: pageOrigin() });
    await page.close();
  });

  it('When a bot fills the honeypot, Then it is refused and logged, and the back link returns to the filled form', async () => {
    const source = await landing([pageOrigin()]);
    const page = await browser.newPage();
    const answer = await fillAndSend(page, source.public_key, '0612345680', 'http://spam.example');
    expect(answer!.status()).to.equal(422);
    expect(await page.textContent('main')).to.include('The website field must be empty.');
    expect((await intakeOf(getCtx(), source.id))[0]).to.include({
      outcome: 'refused',
      reason: 'The website field must be empty.',
    });
    await Promise.all([page.waitForNavigation(), page.click('#back')]);
    expect(await page.inputValue('#lf-phone')).to.equal('0612345680');
    await page.close();
  });

  it('When one address sends a burst over the limit, Then the visitor is told to wait and the refusal is logged', async () => {
    const source = await landing([pageOrigin()]);
    const page = await browser.newPage();
    const statuses: number[] = [];
    for (let i = 0; i <= PER_IP; i++)
      statuses.push((await fillAndSend(page, source.public_key, `061234570${i}`))!.status());
    expect(statuses.slice(0, PER_IP)).to.deep.equal(Array(PER_IP).fill(200)); // the thank-you page after the 303
    expect(statuses[PER_IP]).to.equal(429);
    expect(await page.textContent('main')).to.include('Too many submissions from your address');
    expect(await leadsOf(getCtx(), source.id)).to.have.length(PER_IP);
    const outcomes = (await intakeOf(getCtx(), source.id)).map((l) => l.outcome);
    expect(outcomes).to.deep.equal([...Array(PER_IP).fill('created'), 'rate_limited']);
    await page.close();
  });
});
