import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { shot, useBrowser } from './browser.js';

/** The panel's New lead source form in Chromium (docs/lead-sources.md "In the panel"): the shop's write-only secret. */
describe('panel Lead sources in Chromium: the signing secret is asked of a shop only and never shown back', function () {
  this.timeout(300_000);
  const app = useBrowser();

  it('When a seller creates a Shopify source, Then the secret field appears once Shopify is chosen, is stored, and the page shows only its hint', async () => {
    const acc = await makeAccount(getCtx());
    const secret = 'shpss_0123456789abcdef0123456789abcdef';
    const p = await app.signedIn(acc.seller, { viewport: { width: 1280, height: 900 }, timeout: 180_000 });
    await p.goto(`${app.url}/admin/resources/lead_sources/actions/new`);
    await p.waitForSelector('#name');
    expect(await p.locator('input[type=password]').count(), 'no secret for a form').to.equal(0);

    const kind = p.locator('[data-testid="property-edit-kind"] input[role=combobox]');
    await kind.click();
    await p.locator('[class*=option]', { hasText: 'Shopify' }).first().click();
    await p.fill('#name', 'My shop');
    await p.fill('input[type=password]', secret);
    await shot(p, 'sources-new-shopify', { fullPage: false });
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);

    const [row] = await getCtx().models.LeadSource.findAll({ where: { account_id: acc.id } });
    expect(row.get({ plain: true })).to.include({ kind: 'shopify', name: 'My shop', signing_secret: secret });
    await p.waitForSelector('text=••••cdef');
    expect(await p.content()).to.not.include(secret.slice(6));
    expect(await p.locator('[data-testid="source-snippet"]').count(), 'no snippet for a shop').to.equal(0);
    expect(await p.textContent('[data-testid="source-intake_url"]')).to.include(
      `/intake/shopify/${row.get('public_key')}`,
    );
    await shot(p, 'sources-show-shopify');
  });

  it('When a seller creates a form with default products and a mapping in the panel, Then they are stored, its page says it prices leads, and a bare form’s badge says it cannot', async () => {
    const acc = await makeAccount(getCtx());
    const [first, second] = acc.skus.active;
    const bareSource = await getCtx().services.sources.create(acc.seller.actor, { kind: 'form', name: 'Bare page' });
    const p = await app.signedIn(acc.seller, { viewport: { width: 1280, height: 1000 }, timeout: 180_000 });
    await p.goto(`${app.url}/admin/resources/lead_sources/actions/new`);
    await p.waitForSelector('#name');
    await p.fill('#name', 'Priced page');
    const products = p.locator('[data-testid="products-editor-default_products"]');
    await products.getByRole('button', { name: 'Add product' }).click();
    await p.selectOption('select[name="default_products.0.sku"]', first);
    await p.fill('input[name="default_products.0.quantity"]', '2');
    const mapping = p.locator('[data-testid="sku-mapping"]');
    await mapping.getByRole('button', { name: 'Add mapping' }).click();
    await p.fill('input[name="product_mapping.0.from"]', 'PAGE-BLUE');
    await p.selectOption('select[name="product_mapping.0.to"]', second);
    await shot(p, 'sources-new-form-products');
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);

    const row = await getCtx().models.LeadSource.findOne({ where: { account_id: acc.id, name: 'Priced page' } });
    expect(row!.get({ plain: true })).to.deep.include({
      default_products: [{ sku: first, quantity: 2, price: 100 }],
      product_mapping: { 'PAGE-BLUE': second },
    });
    await p.waitForSelector('[data-testid="source-pricing"][data-pricing="priced"]');
    await shot(p, 'sources-show-form-products');

    await p.goto(`${app.url}/admin/resources/lead_sources`);
    const bare = p.locator('tr', { hasText: 'Bare page' }).locator('[data-testid="source-health"]');
    await bare.waitFor();
    expect(await bare.getAttribute('data-health')).to.equal('no_products');
    expect(await bare.textContent()).to.include('Cannot price leads');
    await shot(p, 'sources-list-no-products');

    // its page: no default products, no mapping, no allowed origins, each a dash (never the column's `[]` or `{}`)
    await p.goto(`${app.url}/admin/resources/lead_sources/records/${bareSource.id}/show`);
    await p.waitForSelector('[data-testid="empty-mapping_text"]');
    const parts = p.locator('[data-testid^="property-show-"]:not([data-testid="property-show-snippet"])');
    const shown = (await parts.allInnerTexts()).join('\n');
    expect(shown).to.include('—');
    expect(shown).to.not.match(/\[\s*\]|\{\s*\}/);
    for (const path of ['products_text', 'mapping_text'])
      expect(await p.textContent(`[data-testid="empty-${path}"]`), path).to.equal('—');
  });
});
