import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, uid, type TestAccount, type TestUser } from '../factories.js';
import { systemActor } from '../../src/actor.js';
import { shot, useBrowser } from './browser.js';

const VIEWPORT = { width: 1366, height: 800 };

/** Picks an option of a searchable select (AdminJS's reference select) by typing part of its label. */
async function choose(page: Page, testId: string, text: string): Promise<void> {
  const input = page.locator(`[data-testid="${testId}"] input[role=combobox]`);
  await input.click();
  await input.fill(text);
  await page.locator('[class*=option]', { hasText: text }).first().click();
}

const leadsOf = (accountId: number, fullName: string) =>
  getCtx().models.Lead.count({ where: { account_id: accountId, full_name: fullName } });

/** A lead of the account's seller that came in with a typed city (as REST, an import or a form leave it). */
async function leadTyping(account: TestAccount, phone: string, fullName: string, city: string) {
  const { references } = await getCtx().services.leads.createMany(account.seller.actor, {
    leads: [{ phone, full_name: fullName, city, products: [{ sku: account.skus.active[0], quantity: 1, price: 100 }] }],
  });
  return (await getCtx().models.Lead.findOne({ where: { account_id: account.id, reference: references[0] } }))!;
}

describe('admin panel forms in Chromium: the account choice, secrets in a dialog, what each role is offered', function () {
  this.timeout(240_000);
  const app = useBrowser();
  let a: TestAccount;
  let b: TestAccount;
  let admin: TestUser;
  const pageOf = (user: TestUser): Promise<Page> => app.signedIn(user, { viewport: VIEWPORT, timeout: 60_000 });

  before(async () => {
    a = await makeAccount(getCtx());
    b = await makeAccount(getCtx());
    admin = await makeAdmin(getCtx());
  });

  it("an admin creates a lead for another account: the form's Account select, and the lead lands there", async () => {
    const p = await pageOf(admin);
    await p.goto(`${app.url}/admin/resources/leads/actions/new`);
    await choose(p, 'property-edit-account_id', b.name);
    await p.fill('#phone', '+212611223344');
    await p.fill('#full_name', 'Chosen Account Lead');
    await shot(p, 'admin-lead-new-account-choice', { fullPage: false });
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
    expect(await leadsOf(b.id, 'Chosen Account Lead')).to.equal(1);
    expect(await leadsOf(admin.actor.accountId as number, 'Chosen Account Lead')).to.equal(0);
    await p.waitForSelector(`text=${b.name}`);
    await shot(p, 'admin-lead-created-in-chosen-account', { fullPage: false });
  });

  it("a seller's new lead form has no Account field, and posting another account's id changes nothing there", async () => {
    const p = await pageOf(a.seller);
    await p.goto(`${app.url}/admin/resources/leads/actions/new`);
    await p.waitForSelector('#phone');
    expect(await p.locator('[data-testid="property-edit-account_id"] input').count()).to.equal(0);
    expect(await p.locator('form label', { hasText: /^Account/ }).count()).to.equal(0);
    await shot(p, 'seller-lead-new-no-account', { fullPage: false });
    const before = await getCtx().models.Lead.count({ where: { account_id: b.id } });
    const res = await p.request.post(`${app.url}/admin/api/resources/leads/actions/new`, {
      headers: { origin: app.url },
      data: { phone: '+212611223355', full_name: 'Tampered Account', status: 'new', account_id: String(b.id) },
    });
    expect(res.status()).to.equal(200);
    expect(await getCtx().models.Lead.count({ where: { account_id: b.id } })).to.equal(before);
    expect(await leadsOf(a.id, 'Tampered Account')).to.equal(1);
  });

  it('a new API key stays in its dialog after 15 s, and its copy button puts it on the clipboard', async () => {
    const p = await pageOf(a.seller);
    await p.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    // the page's clock, so that its 15 s pass at once (a dismissing timer would fire all the same)
    await p.clock.install();
    await p.goto(`${app.url}/admin/resources/api_tokens/actions/new`);
    await p.fill('#name', 'dialog key');
    await p.getByLabel('View leads', { exact: true }).check();
    await p.click('button[type=submit]');
    const value = p.getByTestId('secret-value');
    await value.waitFor();
    const token = await value.inputValue();
    expect(token).to.match(/^\d+\|[A-Za-z0-9_-]{40}$/);
    await p.clock.runFor(15_000);
    expect(await p.getByTestId('secret-dialog').isVisible()).to.equal(true);
    expect(await p.getByTestId('secret-warning').textContent()).to.match(/shown this once/);
    // never in the address or a notice
    expect(p.url()).to.not.include(token.split('|')[1]);
    expect(await p.locator('[data-testid=notice-wrapper]').allTextContents()).to.not.include(token);
    await p.getByTestId('secret-copy').click();
    await p.waitForSelector('[data-testid=secret-copy]:has-text("Copied")');
    expect(await p.evaluate(() => navigator.clipboard.readText())).to.equal(token);
    await shot(p, 'api-key-secret-dialog', { fullPage: false });
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.getByTestId('secret-close').click()]);
    expect(await p.content()).to.not.include(token);
  });

  it('a webhook secret rotation shows the new secret in the dialog', async () => {
    const { endpoint } = await getCtx().services.webhooks.create(a.seller.actor, {
      url: 'http://127.0.0.1:9/dialog-hook',
      events: ['lead.created'],
    });
    const p = await pageOf(a.seller);
    await p.goto(`${app.url}/admin/resources/webhook_endpoints/records/${endpoint.id}/rotateSecret`);
    await p.getByRole('button', { name: 'Confirm' }).click();
    const secret = await p.getByTestId('secret-value').inputValue();
    const [row] = await getCtx().db.sequelize.query<{ secret: string }>(
      'SELECT secret FROM webhook_endpoints WHERE id = :id',
      { replacements: { id: endpoint.id }, type: 'SELECT' as never },
    );
    expect(secret).to.equal(row.secret);
    await shot(p, 'webhook-rotated-secret-dialog', { fullPage: false });
  });

  it("the agent's menu has no import, and the import page is refused up front", async () => {
    const p = await pageOf(a.agent);
    await p.goto(`${app.url}/admin/resources/leads`);
    await p.waitForSelector('[data-css=sidebar]');
    expect(await p.locator('[data-css=sidebar]').textContent()).to.not.include('Import runs');
    expect(await p.getByRole('link', { name: 'Import file' }).count()).to.equal(0);
    expect(await p.getByRole('button', { name: 'Import file' }).count()).to.equal(0);
    await shot(p, 'agent-leads-no-import', { fullPage: false });
    const res = await p.goto(`${app.url}/leads/import`);
    expect(res!.status()).to.equal(403);
    expect(await p.locator('input[type=file]').count()).to.equal(0);
    await p.waitForSelector('text=You are not allowed to do this.');
    await shot(p, 'agent-import-refused', { fullPage: false });
  });

  it('a seller reaches their own account settings and profile from the menu', async () => {
    const p = await pageOf(a.seller);
    await p.goto(`${app.url}/admin`);
    await p.locator('[data-css=sidebar]').getByText('My account').click();
    await p.waitForSelector(`[data-testid=account-page] >> text=${a.name}`);
    await shot(p, 'seller-my-account', { fullPage: false });
    await Promise.all([p.waitForURL(/accounts\/records\/\d+\/edit/), p.getByTestId('account-edit').click()]);
    expect(p.url()).to.include(`/accounts/records/${a.id}/edit`);
    await p.waitForSelector('#name');
  });

  it("a lead's free-text city is chosen in its edit form, and saving untouched keeps it", async () => {
    const ctx = getCtx();
    const name = `Safi ${uid()}`;
    const city = await ctx.services.catalogue.createCity(systemActor(), name);
    const lead = await leadTyping(a, '+212611220051', 'Form City', name.toLowerCase());
    const p = await pageOf(a.seller);
    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/edit`);
    const chosen = p.locator('[data-testid="property-edit-city_id"] [class*=singleValue]');
    await chosen.waitFor();
    expect(await chosen.textContent()).to.equal(name);
    await shot(p, 'lead-edit-city-chosen', { fullPage: false });
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
    await lead.reload();
    expect([lead.city_id, lead.city]).to.deep.equal([city.id, name]);
  });

  it("a lead's typed city not in the list shows in its edit form's City select: kept untouched, replaced by a listed one", async () => {
    const ctx = getCtx();
    const lead = await leadTyping(a, '+212611220052', 'Typed City', 'Tiznit Nord');
    const p = await pageOf(a.seller);
    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/edit`);
    const shown = p.locator('[data-testid="property-edit-city_id"] [class*=singleValue]');
    await shown.waitFor();
    expect(await shown.textContent()).to.equal('Tiznit Nord (not in the list)');
    await shot(p, 'lead-edit-typed-city', { fullPage: false });
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
    await lead.reload();
    expect([lead.city, lead.city_id]).to.deep.equal(['Tiznit Nord', null]);
    // a city of the list chosen instead links the lead to it
    const listed = await ctx.services.catalogue.createCity(systemActor(), `Tiznit ${uid()}`);
    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/edit`);
    await shown.waitFor();
    await choose(p, 'property-edit-city_id', listed.name);
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
    await lead.reload();
    expect([lead.city, lead.city_id]).to.deep.equal([listed.name, listed.id]);
  });

  it("a webhook endpoint's Active box: ticked on a new form, the stored value on edit, kept by an untouched save", async () => {
    const p = await pageOf(a.seller);
    await p.goto(`${app.url}/admin/resources/webhook_endpoints/actions/new`);
    await p.waitForSelector('#url');
    expect(await p.locator('#active').isChecked()).to.equal(true);
    for (const active of [true, false]) {
      const { endpoint } = await getCtx().services.webhooks.create(a.seller.actor, {
        url: `http://127.0.0.1:9/${uid()}`,
        events: ['lead.created'],
        active,
      });
      await p.goto(`${app.url}/admin/resources/webhook_endpoints/records/${endpoint.id}/edit`);
      await p.waitForSelector('#url');
      expect(await p.locator('#active').isChecked()).to.equal(active);
      if (active) await shot(p, 'webhook-edit-active', { fullPage: false });
      await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
      expect((await getCtx().models.WebhookEndpoint.findByPk(endpoint.id))!.get('active')).to.equal(active);
    }
  });

  it("an admin's work queue asks which account the first time, then opens on the last one worked", async () => {
    const fresh = await makeAdmin(getCtx());
    const p = await pageOf(fresh);
    await p.goto(`${app.url}/admin/pages/queue`);
    await p.getByTestId('queue-ask-account').waitFor();
    expect(await p.getByTestId('queue-account').inputValue()).to.equal('');
    expect(await p.getByTestId('queue-next').count()).to.equal(0);
    await shot(p, 'queue-admin-asks-account', { fullPage: false });
    await p.getByTestId('queue-account').selectOption(String(b.id));
    await p.getByTestId('queue-next').waitFor();
    expect(await p.getByTestId('queue-ask-account').count()).to.equal(0);
    // another browser, a new login: the queue opens on B
    const later = await pageOf(fresh);
    await later.goto(`${app.url}/admin/pages/queue`);
    await later.getByTestId('queue-next').waitFor();
    expect(await later.getByTestId('queue-account').inputValue()).to.equal(String(b.id));
    expect(await later.getByTestId('queue-ask-account').count()).to.equal(0);
    await shot(later, 'queue-admin-last-account', { fullPage: false });
  });
});
