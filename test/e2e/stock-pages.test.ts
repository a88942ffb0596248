import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount, type TestUser } from '../factories.js';
import { shot, useBrowser } from './browser.js';
import type { Language } from '../../src/languages.js';

/** The pictures of docs/images/<language>/ are rewritten with UPDATE_DOCS_IMAGES=1 (as the panel walk's). */
const UPDATE_DOCS_IMAGES = process.env.UPDATE_DOCS_IMAGES === '1';
const VIEWPORT = { width: 1280, height: 900 };

/**
 * Stock in the panel (issue 43, docs/stock.md), in Chromium: the Stock page (levels low first, the ledger, the
 * warehouses, an adjustment recorded and one refused) and the work queue's lead with "out of stock" and "N left"
 * beside its lines, in English, French and Arabic.
 */
describe('stock in the panel (Chromium)', function () {
  this.timeout(300_000);
  const app = useBrowser();
  let acc: TestAccount;

  before(async () => {
    const ctx = getCtx();
    acc = await makeAccount(ctx);
    const [a, b, c] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, {
      movements: [
        { sku: a, kind: 'receipt', quantity: 40, reason: 'Supplier delivery 118' },
        { sku: b, kind: 'receipt', quantity: 3 },
      ],
    });
    await ctx.services.stock.setThreshold(acc.seller.actor, b, { low_stock_threshold: 5 });
    // one lead per language waits in the queue: a line of b (3 left) and one of c (none received)
    for (let i = 0; i < 3; i++)
      await ctx.services.leads.createMany(acc.seller.actor, {
        leads: [
          {
            phone: `+2126${String(acc.id % 10000).padStart(4, '0')}${i}${String(Date.now() % 1000).padStart(3, '0')}`,
            full_name: `Stock buyer ${i}`,
            products: [
              { sku: b, quantity: 1, price: 100 },
              { sku: c, quantity: 1, price: 300 },
            ],
          },
        ],
      });
  });

  async function pageOf(user: TestUser, language: Language): Promise<Page> {
    await getCtx().models.User.update({ language }, { where: { id: user.id } });
    return app.signedIn(user, { viewport: VIEWPORT, timeout: 180_000 });
  }

  async function picture(p: Page, language: Language, name: string): Promise<void> {
    await shot(p, `stock-${language}-${name}`, { fullPage: false });
    if (!UPDATE_DOCS_IMAGES) return;
    fs.mkdirSync(path.resolve('docs/images', language), { recursive: true });
    await p.screenshot({ path: path.resolve('docs/images', language, `${name}.png`) });
  }

  const words = {
    en: { out: 'Out of stock', left: '3 left', title: 'Stock', receipt: 'Receipt' },
    fr: { out: 'Rupture de stock', left: '3 restants', title: 'Stock', receipt: 'Réception' },
    ar: { out: 'نفد من المخزون', left: 'تبقّت 3 قطع', title: 'المخزون', receipt: 'استلام' },
  } as const;

  /** "3 left" in the language's words (Arabic's count may be written in its own digits: the words around it). */
  const leftWords = (language: Language) => (language === 'ar' ? 'تبقّت' : words[language].left);

  for (const language of ['en', 'fr', 'ar'] as const) {
    it(`When a seller reading ${language} opens Stock, Then the low levels come first with their words and the ledger lists the receipt`, async () => {
      const p = await pageOf(acc.seller, language);
      await p.goto(`${app.url}/admin/pages/stock`);
      await p.waitForSelector('[data-testid=stock-level]');
      const rows = await p.locator('[data-testid=stock-level]').allInnerTexts();
      // b is under its threshold (3 left) and c has nothing (out of stock): both before a, which has 40
      const [a, b, c] = acc.skus.active;
      expect(rows).to.have.length(3);
      expect(rows[0]).to.include(b).and.include(leftWords(language));
      expect(rows[1]).to.include(c).and.include(words[language].out);
      expect(rows[2]).to.include(a).and.not.include(words[language].out);
      expect(await p.locator('[data-testid=stock-ledger]').innerText()).to.include(words[language].receipt);
      expect(await p.locator('h2').first().innerText()).to.equal(words[language].title);
      await picture(p, language, 'stock-page');
      await p.locator('[data-testid=stock-ledger]').scrollIntoViewIfNeeded();
      await picture(p, language, 'stock-ledger');
    });

    it(`When an agent reading ${language} takes a lead from the queue, Then its lines say out of stock and 3 left`, async () => {
      const p = await pageOf(acc.agent, language);
      await p.goto(`${app.url}/admin/pages/queue`);
      await p.waitForSelector('[data-testid=queue-counts]');
      await p.waitForFunction(() => !document.querySelector('[data-testid=queue-counts]')?.textContent?.includes('…'));
      await p.click('[data-testid=queue-next]');
      await p.waitForSelector('[data-testid=stock-word]');
      const said = await p.locator('[data-testid=products-table] [data-testid=stock-word]').allInnerTexts();
      expect(said).to.have.length(2);
      expect(said[0]).to.include(leftWords(language));
      expect(said[1]).to.equal(words[language].out);
      await picture(p, language, 'queue-stock');
    });
  }

  it('When a seller opens the KPI page, Then its low-stock card lists the products at or below their threshold', async () => {
    const p = await pageOf(acc.seller, 'en');
    await p.goto(`${app.url}/admin/pages/kpi`);
    const card = await p.waitForSelector('[data-testid=kpi-low-stock]');
    const text = await card.innerText();
    const [a, b, c] = acc.skus.active;
    expect(text).to.include('Low stock (2 products)').and.include(b).and.include(c).and.not.include(a);
    expect(text).to.include('3 available, low at 5 or under');
    await card.scrollIntoViewIfNeeded();
    await picture(p, 'en', 'kpi-low-stock');
  });

  it('When a seller records an adjustment that would go below zero, Then the page says why and nothing is recorded', async () => {
    const p = await pageOf(acc.seller, 'en');
    let calls = 0;
    p.on('request', (r) => void (new URL(r.url()).pathname === '/admin/api/pages/stock' && (calls += 1)));
    await p.goto(`${app.url}/admin/pages/stock`);
    await p.waitForSelector('[data-testid=stock-adjust]');
    await p.fill('[data-testid=adjust-sku]', acc.skus.active[2]);
    await p.fill('[data-testid=adjust-quantity]', '-2');
    await p.click('[data-testid=adjust-save]');
    const refusal = await p.waitForSelector('[data-testid=stock-refusal]');
    expect(await refusal.innerText()).to.include('below 0');
    // one load and one adjustment: the page does not reload itself after each answer (the form stays as typed)
    expect(calls).to.equal(2);
    const before = await getCtx().db.sequelize.query('SELECT 1 FROM stock_movements WHERE account_id = $1', {
      bind: [acc.id],
    });
    expect((before[0] as unknown[]).length).to.equal(2);
  });
  it('When a seller imports a stock count on the Stock page, Then the run reports the rows counted and the refused one, and the level is what was counted', async () => {
    const p = await pageOf(acc.seller, 'fr');
    await p.goto(`${app.url}/admin/pages/stock`);
    await p.waitForSelector('[data-testid=stock-count] input[type=file]');
    const [a] = acc.skus.active;
    const file = {
      name: 'inventaire.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`sku,quantity\n${a},37\nNOPE,1\n`),
    };
    await p.setInputFiles('[data-testid=stock-count] input[type=file]', file);
    await p.click('[data-testid=stock-count] button[type=submit]');
    const queued = await p.waitForSelector('[data-testid=import-report]');
    const id = Number((await p.getAttribute('[data-testid=import-run-link]', 'href'))!.split('/').at(-2));
    expect(await queued.getAttribute('data-status')).to.be.oneOf(['queued', 'running', 'completed']);
    await getCtx().services.stock.runCount(id);
    await p.waitForSelector('[data-testid=import-report][data-status=completed]');
    expect(await p.innerText('[data-testid=import-created]')).to.include('Lignes comptées : 1');
    expect(await p.innerText('[data-testid=import-refusal]')).to.include('NOPE');
    await picture(p, 'fr', 'stock-count');
    const levels = await getCtx().services.stock.list(acc.seller.actor, { sku: a });
    expect(levels.data.find((l) => l.warehouse === 'MAIN')?.on_hand).to.equal(37);
  });
  it('When a seller reading Arabic ships a new order from another warehouse, Then the order page says so and the ledger filtered by the order shows the move', async () => {
    const ctx = getCtx();
    const [a] = acc.skus.active;
    await ctx.services.stock.createWarehouse(acc.seller.actor, { code: 'TNG', name: 'Tanger' });
    const lead = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: `+21266${String(Date.now() % 10_000_000).padStart(7, '0')}`,
          full_name: 'Move buyer',
          products: [{ sku: a, quantity: 1, price: 100 }],
        },
      ],
    });
    await ctx.services.leads.updateStatuses(acc.seller.actor, {
      leads: [{ reference: lead.references[0], status: 'confirmed' }],
    });
    const order = (await ctx.models.Order.findOne({ where: { lead_reference: lead.references[0] } }))!;
    const p = await pageOf(acc.seller, 'ar');
    await p.goto(`${app.url}/admin/resources/orders/records/${order.id}/orderWarehouse`);
    await p.waitForSelector('[data-testid=order-warehouse] option[value=TNG]', { state: 'attached' });
    await p.selectOption('#warehouse', 'TNG');
    await picture(p, 'ar', 'order-warehouse');
    await p.click('[data-testid=order-warehouse-save]');
    await p.waitForURL(/\/show(\?|$)/);
    expect(await p.innerText('body')).to.include('تُشحن الطلبية الآن من TNG');

    await p.goto(`${app.url}/admin/pages/stock`);
    await p.fill('[data-testid=ledger-order]', order.reference);
    await p.waitForFunction(() => document.querySelectorAll('[data-testid=stock-ledger] tbody tr').length === 3);
    const rows = await p.$$eval('[data-testid=stock-ledger] tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(rows.some((r) => r.includes('TNG'))).to.equal(true);
    expect(rows.every((r) => r.includes(order.reference))).to.equal(true);
  });
});
