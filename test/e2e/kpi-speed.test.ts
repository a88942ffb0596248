import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser, type TestAccount } from '../factories.js';
import { shot, useBrowser } from './browser.js';

/**
 * The KPI page's speed-to-lead and return-rate charts in Chromium, in English, French and Arabic at 1280 px (the
 * walk's width): every canvas painted, the words of the language, nothing wider than the page. Each section is saved
 * to test-artifacts/ (kpi-speed-<language>.png, kpi-returns-<language>.png); with UPDATE_DOCS_IMAGES=1 also to
 * docs/images/<language>/ (docs/admin-panel.md).
 */
const VIEWPORT = { width: 1280, height: 900 };
const UPDATE_DOCS_IMAGES = process.env.UPDATE_DOCS_IMAGES === '1';
const WORDS = {
  en: ['Speed to lead', 'Return rate', 'Confirmation rate by the delay to the first touch'],
  fr: ['Délai de premier contact', 'Taux de retour', 'Taux de confirmation selon le délai de premier contact'],
  ar: ['سرعة التواصل مع العميل', 'نسبة الإرجاع', 'نسبة التأكيد حسب مدة أول تواصل'],
} as const;
const CANVASES = ['speed-days', 'speed-agent', 'speed-source', 'speed-bands', 'returns-city', 'returns-product'];

/** 24 leads over a week, touched by two agents after 2 minutes to 2 days (some never), half delivered, some returned. */
async function shop(): Promise<TestAccount> {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  const agents = [acc.agent, await makeUser(ctx, acc.id, 'agent', 'Amina')];
  const cities = ['Casablanca', 'Rabat', 'Fes'];
  const leads = Array.from({ length: 24 }, (_, i) => ({
    phone: `+2126${String(acc.id % 1000).padStart(3, '0')}${String(i).padStart(5, '0')}`,
    full_name: `Chart Customer ${i}`,
    city: cities[i % 3],
    products: [{ sku: acc.skus.active[i % 3], quantity: 1, price: 10 }],
  }));
  const { references } = await ctx.services.leads.createMany(acc.seller.actor, { leads });
  const delays = [120, 600, 1_200, 3_000, 7_200, 20_000, 90_000, 180_000];
  for (const [i, reference] of references.entries()) {
    if (i % 6 === 5) continue;
    const status = i % 3 === 2 ? 'no_answer' : 'confirmed';
    await ctx.services.leads.updateStatuses(agents[i % 2].actor, { leads: [{ reference, status }] });
    // its day moves back with its first touch and history, so the delay stays the one chosen
    const bind = [reference, delays[i % 8], i % 7, acc.id];
    await ctx.db.sequelize.query(
      `UPDATE leads SET created_at = first_touch_at - $2 * interval '1 second' - $3 * interval '1 day',
                        first_touch_at = first_touch_at - $3 * interval '1 day'
        WHERE reference = $1 AND account_id = $4`,
      { bind },
    );
    await ctx.db.sequelize.query(
      `UPDATE lead_histories SET changed_at = changed_at - $3 * interval '1 day'
        WHERE lead_reference = $1 AND account_id = $4 AND $2::int IS NOT NULL`,
      { bind },
    );
  }
  await ctx.db.sequelize.query(
    `UPDATE orders SET status = CASE WHEN id % 4 = 0 THEN 'returned' ELSE 'delivered' END WHERE account_id = $1`,
    { bind: [acc.id] },
  );
  await ctx.services.kpi.fold();
  return acc;
}

/** Whether a canvas has painted pixels (chart.js drew on it). */
const painted = (p: Page, name: string) =>
  p.$eval(`canvas[data-testid=chart-${name}]`, (c) => {
    const { data } = (c as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, c.clientWidth, c.clientHeight);
    return data.some((v, i) => i % 4 === 3 && v > 0);
  });

describe('KPI page in Chromium: speed to lead and return rate charts', function () {
  this.timeout(300_000);
  const app = useBrowser();

  for (const language of ['en', 'fr', 'ar'] as const)
    it(`When a seller reading ${language} opens the KPI page, Then the speed and return charts are drawn in ${language} within 1280 px`, async () => {
      const acc = await shop();
      await getCtx().models.User.update({ language }, { where: { id: acc.seller.id } });
      const p = await app.signedIn(acc.seller, { viewport: VIEWPORT, timeout: 180_000 });
      await p.goto(`${app.url}/admin/pages/kpi`);
      await p.waitForSelector('[data-testid=kpi-speed] canvas[data-testid=chart-speed-days]');
      await p.waitForSelector('[data-testid=kpi-returns] canvas[data-testid=chart-returns-agent]');
      for (const name of CANVASES) expect(await painted(p, name), name).to.equal(true);
      const text = await p.innerText('body');
      for (const word of WORDS[language]) expect(text, word).to.include(word);
      // 20 touched of 24, 4 never; agent names of the account, never another account's
      expect(await p.innerText('[data-testid=kpi-speed-counts]')).to.match(/20\D+4/);
      const overflow = await p.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, 'horizontal overflow in px').to.be.at.most(0);
      // the panel's sticky top bar would cover a section's title in its picture (CSSOM: the page's CSP refuses a tag)
      await p.$$eval('[data-css=topbar]', (bars) =>
        bars.forEach((b) => ((b as HTMLElement).style.visibility = 'hidden')),
      );
      for (const section of ['speed', 'returns']) {
        const box = p.locator(`[data-testid=kpi-${section}]`);
        await box.scrollIntoViewIfNeeded();
        await box.screenshot({ path: path.join('test-artifacts', `kpi-${section}-${language}.png`) });
        if (UPDATE_DOCS_IMAGES) {
          fs.mkdirSync(path.join('docs/images', language), { recursive: true });
          await box.screenshot({ path: path.join('docs/images', language, `kpi-${section}.png`) });
        }
      }
      await shot(p, `kpi-speed-page-${language}`);
    });
});
