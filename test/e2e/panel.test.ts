import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { systemActor } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, makeFilledAccount, type TestAccount } from '../factories.js';
import { restClient } from '../rest-client.js';
import { shot, useBrowser } from './browser.js';

async function pick(page: Page, selectIndex: number, text: string): Promise<void> {
  const input = page.locator('input[role=combobox]').nth(selectIndex);
  await input.click();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

async function save(page: Page): Promise<void> {
  await Promise.all([page.waitForURL(/\/records\/\d+\/show/, { timeout: 20_000 }), page.click('button[type=submit]')]);
}

describe('admin panel in Chromium', function () {
  this.timeout(120_000);
  const app = useBrowser();

  const page = (acc: { email: string; password: string }): Promise<Page> => app.signedIn(acc);

  it('seller: creates a lead with two products in the products editor (a picked sku fills its price), an error shown under its row; the show page lists them', async () => {
    const acc: TestAccount = await makeAccount(getCtx());
    const [a, b] = acc.skus.active; // catalogue prices 100 and 200
    const p = await page(acc.seller);
    await p.goto(`${app.url}/admin/resources/leads/actions/new`);
    await p.fill('#phone', '+212 611 000 444');
    await p.fill('#full_name', 'Two Products');
    await pick(p, 0, 'new');
    const add = p.getByRole('button', { name: 'Add product' });
    await add.click();
    await p.selectOption('[aria-label="Product 1"]', a);
    expect(await p.inputValue('[aria-label="Price 1"]'), 'the catalogue price').to.equal('100');
    await add.click();
    await p.selectOption('[aria-label="Product 2"]', b);
    expect(await p.inputValue('[aria-label="Price 2"]')).to.equal('200');
    await p.fill('[aria-label="Quantity 2"]', '1000');
    await p.click('button[type=submit]');
    const error = p.locator('[data-testid=product-row]').nth(1).locator('[data-testid=product-error]');
    await error.waitFor({ timeout: 20_000 });
    expect(await error.textContent()).to.match(/quantity/i);
    await shot(p, 'lead-new-products-error');
    expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(0);
    await p.fill('[aria-label="Quantity 2"]', '3');
    await p.fill('[aria-label="Price 2"]', '150.5');
    await shot(p, 'lead-new-products');
    await save(p);
    await p.waitForSelector(`text=${b}`);
    await shot(p, 'lead-show-products');
    const lead = (await getCtx().models.Lead.findOne({ where: { account_id: acc.id } }))!;
    const shown = await getCtx().services.leads.show(acc.seller.actor, { id: lead.id });
    expect(shown.products.map((l) => [l.sku, l.quantity, Number(l.price)])).to.deep.equal([
      [a, 1, 100],
      [b, 3, 150.5],
    ]);
    expect(shown.total).to.equal(551.5);
    expect(await p.textContent('body')).to.include(a);

    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/edit`);
    await p.waitForSelector('[aria-label="Product 2"]');
    expect(await p.inputValue('[aria-label="Product 2"]'), 'the edit form shows the lines').to.equal(b);
  });

  it('seller: creates a lead, sets call_later with a date, sees the history, and cannot bulk-delete a confirmed lead', async () => {
    const acc: TestAccount = await makeAccount(getCtx());
    const p = await page(acc.seller);
    await p.goto(`${app.url}/admin/resources/leads/actions/new`);
    await p.fill('#phone', '+212 611 000 222');
    await p.fill('#full_name', 'Browser Customer');
    await pick(p, 0, 'new');
    await shot(p, 'lead-new');
    await save(p);
    const lead = await getCtx().models.Lead.findOne({ where: { account_id: acc.id } });
    expect(lead).to.not.equal(null);
    expect(lead!.full_name).to.equal('Browser Customer');

    await p.goto(`${app.url}/admin/resources/leads/records/${lead!.id}/edit`);
    await pick(p, 0, 'call later');
    await p.fill('#action_date', '2030-12-01T14:30'); // a wall time of the account's zone (MA: Africa/Casablanca, +01:00)
    await save(p);
    await p.waitForSelector('[data-testid=history-timeline] [data-status=call_later]');
    await shot(p, 'lead-show-history');
    const saved = await getCtx().models.Lead.findByPk(lead!.id);
    expect(saved!.status).to.equal('call_later');
    expect(saved!.action_date!.toISOString()).to.equal('2030-12-01T13:30:00.000Z');

    // a lead without products cannot be confirmed (decisions.md, "Product lines"): it gets one first
    await getCtx().services.leads.update(acc.seller.actor, lead!.id, {
      status: 'confirmed',
      full_name: 'Browser Customer',
      phone: lead!.phone,
      products: [{ sku: acc.skus.active[0] }],
    });
    await p.goto(`${app.url}/admin/resources/leads/bulk/bulkDelete?recordIds=${lead!.id}`);
    await p.getByRole('button', { name: /confirm/i }).click();
    await p.waitForSelector('text=/Nothing was deleted/');
    await shot(p, 'lead-bulk-delete-refused');
    expect(await getCtx().models.Lead.count({ where: { id: lead!.id } })).to.equal(1);

    await p.goto(`${app.url}/admin/resources/leads`);
    await p.waitForSelector('text=Browser Customer');
    await shot(p, 'leads-list');
  });

  it('seller: imports a CSV in the panel and reads its report there, follows the run and its error report, exports the leads and downloads the file', async () => {
    const acc: TestAccount = await makeAccount(getCtx());
    const { ImportRun, ExportRun } = getCtx().models;
    const p = await page(acc.seller);
    await p.goto(`${app.url}/admin/resources/leads`);
    const importPage = /\/admin\/resources\/leads\/actions\/importFile$/;
    await Promise.all([p.waitForURL(importPage), p.getByText('Import file', { exact: true }).click()]);
    const csv = `phone,sku,full_name\n+212600700001,${acc.skus.active[0]},Panel Import One\n123,${acc.skus.active[0]},Bad Phone Row\n`;
    await p.setInputFiles('#file', { name: 'panel.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await p.click('[data-testid=import-page] button[type=submit]');
    // the page follows the run: queued until the job runs (the test runs it), then its report
    await p.waitForSelector('[data-testid=import-report][data-status=queued]');
    const run = (await ImportRun.findOne({ where: { account_id: acc.id } }))!;
    await getCtx().services.imports.run(run.id);
    await p.waitForSelector('[data-testid=import-report][data-status=completed]', { timeout: 20_000 });
    expect(await p.textContent('[data-testid=import-created]')).to.equal('Rows created: 1');
    expect(await p.textContent('[data-testid=import-refused]')).to.equal('Rows refused: 1');
    const refusal = p.locator('[data-testid=import-refusal]');
    expect(await refusal.count()).to.equal(1);
    expect(await refusal.getAttribute('data-row')).to.equal('3');
    expect(await refusal.textContent()).to.match(/^3phone.*phone/i);
    expect(await p.locator('[data-css=sidebar]').count(), 'inside the panel: its menu').to.equal(1);
    await shot(p, 'import-page-report');

    await Promise.all([
      p.waitForURL(new RegExp(`/import_runs/records/${run.id}/show$`)),
      p.click('[data-testid=import-run-link]'),
    ]);
    await p.waitForSelector('text=completed');
    await shot(p, 'import-run-show');
    const [report] = await Promise.all([
      p.waitForEvent('download'),
      p.getByText('Error report', { exact: true }).click(),
    ]);
    expect(report.suggestedFilename()).to.equal(`import-${run.id}-errors.csv`);
    expect(fs.readFileSync((await report.path())!, 'utf8')).to.match(/^row,column,message\n3,phone,/);

    await p.goto(`${app.url}/admin/resources/leads`);
    await p.getByText('Export CSV', { exact: true }).click();
    await Promise.all([
      p.waitForURL(/\/admin\/resources\/export_runs/),
      p.getByRole('button', { name: 'Confirm' }).click(),
    ]);
    const exp = (await ExportRun.findOne({ where: { account_id: acc.id } }))!;
    await getCtx().services.exports.run(exp.id);
    await p.goto(`${app.url}/admin/resources/export_runs/records/${exp.id}/show`);
    await p.waitForSelector('text=completed');
    await p.waitForSelector('text=none (all leads)');
    expect(await p.locator('text=Javascript Error').count()).to.equal(0);
    await shot(p, 'export-run-show');
    const [file] = await Promise.all([p.waitForEvent('download'), p.getByText('Download', { exact: true }).click()]);
    const text = fs.readFileSync((await file.path())!, 'utf8');
    expect(text).to.include('Panel Import One').and.not.include('Bad Phone Row');

    // the old address of the import page leads to the panel's
    await p.goto(`${app.url}/leads/import`);
    await p.waitForURL(importPage);
    await p.waitForSelector('[data-testid=import-page] input#file');
  });

  it('agent: finds no delete, import, export or API-key actions', async () => {
    const acc = await makeAccount(getCtx());
    await getCtx().services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212622000111',
          full_name: 'Agent Visible',
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
        },
      ],
    });
    const p = await page(acc.agent);
    await p.goto(`${app.url}/admin/resources/leads`);
    await p.waitForSelector('text=Agent Visible');
    await shot(p, 'agent-leads-list');
    for (const label of ['Export CSV', 'Export Excel', 'Import file', 'Create new']) {
      expect(await p.locator(`button:has-text("${label}"), a:has-text("${label}")`).count(), label).to.equal(0);
    }
    expect(await p.locator('button:has-text("Edit"), a:has-text("Edit")').count()).to.be.greaterThan(0);
    expect(await p.getByRole('button', { name: /delete/i }).count()).to.equal(0);
    expect(await p.locator('nav').getByText('API keys').count()).to.equal(0);
    await p.goto(`${app.url}/admin/resources/api_tokens`);
    await p.waitForTimeout(1000);
    expect(await p.getByText('Agent Visible').count()).to.equal(0);
    expect(await getCtx().models.ApiToken.count({ where: { account_id: acc.id } })).to.equal(0);
  });

  it('admin: sees the leads of two accounts', async () => {
    const a = await makeAccount(getCtx());
    const b = await makeAccount(getCtx());
    for (const [acc, name] of [
      [a, 'Zed First Account'],
      [b, 'Zed Second Account'],
    ] as const) {
      await getCtx().services.leads.createMany(acc.seller.actor, {
        leads: [
          {
            phone: `+2126330${String(acc.id % 100000).padStart(5, '0')}`,
            full_name: name,
            products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
          },
        ],
      });
    }
    const admin = await makeAdmin(getCtx());
    const p = await page(admin);
    await p.waitForSelector('text=Confirmation rate (7 days)');
    await shot(p, 'home-dashboard');
    // Lowercase on purpose: the panel's text filters are case-insensitive.
    await p.goto(`${app.url}/admin/resources/leads?filters.full_name=zed`);
    await p.waitForSelector('text=Zed First Account');
    await p.waitForSelector('text=Zed Second Account');
    await shot(p, 'admin-leads-two-accounts');
  });

  it('seller: generates an API key with a preset (scopes as checkboxes in words), sees it once and uses it on the REST API', async () => {
    const acc = await makeAccount(getCtx());
    const p = await page(acc.seller);
    await p.goto(`${app.url}/admin/resources/api_tokens/actions/new`);
    await p.fill('#name', 'landing page');
    const box = (words: string) => p.getByLabel(words, { exact: true });
    await p.getByTestId('scope-preset-readOnly').click();
    expect(await box('View leads').isChecked()).to.equal(true);
    expect(await box('View orders').isChecked()).to.equal(true);
    expect(await box('Create leads').isChecked()).to.equal(false);
    await p.getByTestId('scope-preset-integrator').click();
    await box('Manage webhooks').uncheck();
    await box('Delete leads').check();
    await box('Delete leads').uncheck();
    const form = await p.getByTestId('scope-checks').innerText();
    expect(form)
      .to.include('Create leads')
      .and.include('Read only')
      .and.include('Integrator')
      .and.include('Everything');
    expect(form).to.not.match(/[A-Z]{4,} [A-Z]{4,}/); // no raw code such as "VIEW LEADS"
    await shot(p, 'api-key-new');
    await p.click('button[type=submit]');
    const token = await p.getByTestId('secret-value').inputValue();
    expect(token).to.match(/^\d+\|[A-Za-z0-9_-]{40}$/);
    await shot(p, 'api-key-shown-once');
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.getByTestId('secret-close').click()]);
    const saved = await getCtx().models.ApiToken.findOne({ where: { account_id: acc.id, name: 'landing page' } });
    expect(saved!.scopes).to.deep.equal(['CREATE LEADS', 'VIEW LEADS', 'VIEW ORDERS']);
    const rest = restClient(app.url, token);
    expect((await rest('GET', '/leads')).status).to.equal(200);
    expect((await rest('DELETE', '/leads', { references: ['LD0000000000'] })).status).to.equal(403);
    await p.reload();
    await p.waitForSelector('[data-testid=value-list] >> text=Create leads');
    expect(await p.content()).to.not.include(token);
    expect(await p.locator('[data-testid=value-list]').innerText()).to.not.include('CREATE LEADS');
    await shot(p, 'api-key-show-scopes');
    await p.goto(`${app.url}/admin/resources/api_tokens`);
    await p.waitForSelector('[data-testid=value-list] >> text=/Create leads, View leads, View orders/');
    await shot(p, 'api-key-list-scopes');
  });

  it('seller: every panel page shows only their account; a cross-site link or form to a delete URL leaves the lead in place', async () => {
    const ctx = getCtx();
    const own = await makeFilledAccount(ctx, 'browser-own');
    const foreign = await makeFilledAccount(ctx, 'browser-foreign');
    const p = await page(own.seller);
    await p.goto(`${app.url}/admin/resources/leads?filters=`);
    await p.waitForSelector('text=Customer browser-own 1');
    await shot(p, 'seller-leads-tampered-filter');
    for (const resource of [
      'leads',
      'orders',
      'lead_histories',
      'order_histories',
      'products',
      'users',
      'accounts',
      'api_tokens',
      'shipping_companies',
      'import_runs',
      'export_runs',
    ]) {
      await p.goto(`${app.url}/admin/resources/${resource}?filters=&perPage=500`);
      await p.waitForLoadState('networkidle');
      const text = await p.content();
      expect(text, resource).to.not.include('browser-foreign').and.not.include(foreign.name);
    }

    // Another site (localhost is another site than 127.0.0.1): a link to the API, a link to the panel's delete page, a form.
    const lead = (await ctx.models.Lead.findByPk(own.leadIds[1]))!;
    const api = `${app.url}/admin/api/resources/leads/records/${lead.id}/delete`;
    const evil = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<a id="api" href="${api}">api</a> <a id="page" href="${app.url}/admin/resources/leads/records/${lead.id}/delete">page</a>
        <img src="${api}"><form id="post" method="post" action="${api}"><button>go</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    try {
      for (const id of ['#api', '#page', '#post button']) {
        await p.goto(evilUrl);
        await Promise.all([p.waitForLoadState('load'), p.click(id)]);
        await p.waitForLoadState('networkidle');
        await shot(p, `cross-site-${id.replace(/\W+/g, '')}`);
        expect(await ctx.models.Lead.count({ where: { id: lead.id } }), id).to.equal(1);
        // The top-level GETs carried the session (SameSite=Lax): they were refused by the panel, not by a missing login.
        if (id === '#api')
          expect(await p.textContent('body'))
            .to.include(`"reference":"${lead.reference}"`)
            .and.not.include('Unauthenticated');
      }
    } finally {
      evil.close();
    }
  });

  it('seller: pushes an order from the panel after confirming; opening the push address alone pushes nothing', async () => {
    const ctx = getCtx();
    const acc = await makeFilledAccount(ctx, 'browser-push');
    const order = (await ctx.models.Order.findOne({ where: { account_id: acc.id } }))!;
    const p = await page(acc.seller);
    await p.goto(`${app.url}/admin/resources/orders/bulk/pushToShipping?recordIds=${order.id}`);
    await p.waitForSelector('text=1 selected.');
    // the account's only carrier is named, nothing to choose
    await p.waitForSelector("text=They go to Carrier browser-push, the account's only active shipping company.");
    await shot(p, 'order-push-confirm');
    expect((await ctx.models.Order.findByPk(order.id))!.push_state).to.equal(order.push_state);
    await p.getByRole('button', { name: 'Confirm' }).click();
    await p.waitForSelector('text=/1 order queued for Carrier browser-push/');
    expect((await ctx.models.Order.findByPk(order.id))!.push_state).to.equal('queued');
  });

  it('seller: with two carriers, chooses one in the push confirmation, from the list and from an order page', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const carrier = (code: string, name: string) =>
      ctx.services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code,
        name,
        endpoint_url: `http://127.0.0.1:9/${code}`,
      });
    const none = await ctx.services.orders.createMany(acc.seller.actor, {
      orders: [1, 2].map((i) => ({
        phone: `+2126${String(acc.id % 10000).padStart(4, '0')}${i}456`,
        full_name: `Chooser ${i}`,
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
      })),
    });
    const [listed, single] = await ctx.models.Order.findAll({
      where: { account_id: acc.id, reference: none.references },
      order: [['id', 'ASC']],
    });
    const p = await page(acc.seller);
    // no carrier yet: said in words, no Confirm to press
    await p.goto(`${app.url}/admin/resources/orders/bulk/pushToShipping?recordIds=${listed.id}`);
    await p.getByTestId('push-no-carrier').waitFor();
    expect(await p.getByRole('button', { name: 'Confirm' }).isDisabled()).to.equal(true);
    await shot(p, 'order-push-no-carrier');

    const [, south] = [await carrier('north', 'North Express'), await carrier('south', 'South Freight')];
    await p.reload();
    const select = p.getByTestId('push-carrier');
    await select.waitFor();
    expect(await select.locator('option').allInnerTexts()).to.deep.equal([
      'Choose a shipping company…',
      'North Express',
      'South Freight',
    ]);
    expect(await p.getByRole('button', { name: 'Confirm' }).isDisabled()).to.equal(true);
    await shot(p, 'order-push-choose-carrier');
    await select.selectOption({ label: 'South Freight' });
    await p.getByRole('button', { name: 'Confirm' }).click();
    await p.waitForSelector('text=/1 order queued for South Freight/');
    expect(await listed.reload()).to.include({ push_state: 'queued', shipping_company_id: south.id });

    // the order's page has its own push button
    await p.goto(`${app.url}/admin/resources/orders/records/${single.id}/show`);
    const button = p.getByTestId('action-pushOrder');
    expect(await button.innerText()).to.include('Push to carrier');
    await button.click();
    await p.getByTestId('push-carrier').selectOption({ label: 'North Express' });
    await shot(p, 'order-show-push-to-carrier');
    await p.getByRole('button', { name: 'Confirm' }).click();
    await p.waitForSelector('text=/1 order queued for North Express/');
    await p.waitForURL(new RegExp(`/orders/records/${single.id}/show`));
    expect((await single.reload()).push_state).to.equal('queued');
    await shot(p, 'order-show-pushed');
    // queued now: the button is gone from its page
    await p.reload();
    await p.waitForSelector(`text=${single.reference}`);
    expect(await p.getByTestId('action-pushOrder').count()).to.equal(0);
  });
});
