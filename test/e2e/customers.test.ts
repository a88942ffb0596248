import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser, type TestAccount, type TestUser } from '../factories.js';
import { blockPhone, leadOf, ordersWithOutcomes } from '../customer-fixtures.js';
import { shot, useBrowser } from './browser.js';
import type { Language } from '../../src/languages.js';

/** The pictures of docs/images/<language>/ are rewritten with UPDATE_DOCS_IMAGES=1 (as the panel walk's). */
const UPDATE_DOCS_IMAGES = process.env.UPDATE_DOCS_IMAGES === '1';
const VIEWPORT = { width: 1280, height: 900 };

type Kind = 'risky' | 'blocked' | 'good';
const PHONES: Record<Kind, string> = { risky: '+212622000001', blocked: '+212622000002', good: '+212622000003' };
const BLOCK_REASON = 'Refused two parcels at the door';

/**
 * The customer record beside the phone, in Chromium: three customers (risky by two returned parcels, blocked, good
 * with three delivered), each the only lead waiting in its own account, seen on the work queue and on the lead's page
 * in English, one of them in French and Arabic, and the Customers list filtered by risk.
 */
describe('customer records in the panel (Chromium)', function () {
  this.timeout(300_000);
  const app = useBrowser();
  const shops = {} as Record<Kind, { acc: TestAccount; leadId: number }>;

  before(async () => {
    const ctx = getCtx();
    for (const kind of ['risky', 'blocked', 'good'] as const) {
      const acc = await makeAccount(ctx);
      const lead = await leadOf(ctx, acc, PHONES[kind], `Customer ${kind}`);
      const outcomes = {
        risky: ['returned', 'returned'],
        blocked: ['delivered'],
        good: ['delivered', 'delivered', 'delivered'],
      }[kind];
      await ordersWithOutcomes(ctx, acc, PHONES[kind], outcomes as ('delivered' | 'returned')[]);
      if (kind === 'blocked') await blockPhone(ctx, acc.id, PHONES[kind], BLOCK_REASON);
      shops[kind] = { acc, leadId: lead.id };
    }
  });

  async function pageOf(user: TestUser, language: Language = 'en'): Promise<Page> {
    await getCtx().models.User.update({ language }, { where: { id: user.id } });
    // the first panel page of a run may wait for AdminJS to bundle its components
    return app.signedIn(user, { viewport: VIEWPORT, timeout: 180_000 });
  }

  /** A picture in test-artifacts/, and in docs/images/<language>/ when asked. */
  async function picture(p: Page, language: Language, name: string): Promise<void> {
    await shot(p, `customer-${language}-${name}`, { fullPage: false });
    if (!UPDATE_DOCS_IMAGES) return;
    fs.mkdirSync(path.resolve('docs/images', language), { recursive: true });
    await p.screenshot({ path: path.resolve('docs/images', language, `${name}.png`) });
  }

  /** The queue page with the account's one lead taken; answers the customer card's text and standing. */
  async function queueRecord(p: Page): Promise<{ text: string; standing: string | null; badge: string }> {
    await p.goto(`${app.url}/admin/pages/queue`);
    await p.waitForSelector('[data-testid=queue-counts]');
    await p.waitForFunction(() => !document.querySelector('[data-testid=queue-counts]')?.textContent?.includes('…'));
    await p.click('[data-testid=queue-next]');
    const card = await p.waitForSelector('[data-testid=customer-record]');
    const badge = await p.locator('[data-testid=queue-lead] [data-testid=customer-badge]').first().innerText();
    return { text: await card.innerText(), standing: await card.getAttribute('data-standing'), badge };
  }

  async function showRecord(p: Page, leadId: number): Promise<{ text: string; standing: string | null }> {
    await p.goto(`${app.url}/admin/resources/leads/records/${leadId}/show`);
    const card = await p.waitForSelector('[data-testid=customer-record]');
    await card.scrollIntoViewIfNeeded();
    return { text: await card.innerText(), standing: await card.getAttribute('data-standing') };
  }

  it('When an agent takes the risky customer from the queue, Then the record beside the phone says risky and why', async () => {
    const p = await pageOf(shops.risky.acc.agent);
    const record = await queueRecord(p);
    expect(record.standing).to.equal('risky');
    expect(record.badge).to.equal('Risky');
    expect(record.text).to.include('Returned parcels: 2 (limit 2)');
    expect(record.text).to.include('Returned\n2');
    expect(record.text).to.match(/Last order\s+OR\w{10}\s+Returned\s+\d+ \w{3} \d{4}, \d{2}:\d{2} \(/);
    await picture(p, 'en', 'queue-customer-risky');
  });

  it('When an agent takes the blocked customer from the queue, Then the record says blocked with the reason', async () => {
    const p = await pageOf(shops.blocked.acc.agent);
    const record = await queueRecord(p);
    expect(record.standing).to.equal('blocked');
    expect(record.badge).to.equal('Blocked');
    expect(record.text).to.include(`Blocked: ${BLOCK_REASON}`);
    await picture(p, 'en', 'queue-customer-blocked');
  });

  it('When an agent takes the good customer from the queue, Then the record reads calmly: 3 of 3 delivered', async () => {
    const p = await pageOf(shops.good.acc.agent);
    const record = await queueRecord(p);
    expect(record.standing).to.equal('good');
    expect(record.badge).to.equal('3 of 3 delivered');
    expect(record.text).to.not.match(/Risky|Blocked/);
    expect(record.text).to.include('First seen');
    await picture(p, 'en', 'queue-customer-good');
  });

  for (const kind of ['risky', 'blocked', 'good'] as const) {
    it(`When a seller opens the ${kind} customer's lead, Then its page shows the record next to the phone`, async () => {
      const p = await pageOf(shops[kind].acc.seller);
      const record = await showRecord(p, shops[kind].leadId);
      expect(record.standing).to.equal(kind);
      const words = {
        risky: 'Returned parcels: 2 (limit 2)',
        blocked: `Blocked: ${BLOCK_REASON}`,
        good: '3 of 3 delivered',
      };
      expect(record.text).to.include(words[kind]);
      await picture(p, 'en', `lead-show-customer-${kind}`);
    });
  }

  /**
   * The risky lead given back by `holder` (an earlier test holds it); it comes back to the same user only later, so
   * each language is read by another user of the account.
   */
  const giveBack = (holder: TestUser) =>
    getCtx()
      .services.queue.release(holder.actor, shops.risky.leadId)
      .catch(() => undefined);

  it('When a seller reads French, Then the risky record is in French, its reason too', async () => {
    await giveBack(shops.risky.acc.agent);
    const p = await pageOf(shops.risky.acc.seller, 'fr');
    const record = await queueRecord(p);
    expect(record.badge).to.equal('À risque');
    expect(record.text).to.include('Colis retournés : 2 (limite 2)');
    expect(record.text).to.include('Dernière commande');
    await picture(p, 'fr', 'queue-customer-risky');
    const show = await showRecord(p, shops.risky.leadId);
    expect(show.text).to.include('Fiche client');
    await picture(p, 'fr', 'lead-show-customer-risky');
  });

  it('When another agent reads Arabic, Then the risky record is in Arabic, right to left, the phone left to right', async () => {
    await giveBack(shops.risky.acc.seller);
    const p = await pageOf(await makeUser(getCtx(), shops.risky.acc.id, 'agent'), 'ar');
    const record = await queueRecord(p);
    expect(record.badge).to.equal('محفوف بالمخاطر');
    expect(record.text).to.include('طرود مُرتجَعة: 2 (الحد 2)');
    expect(await p.getAttribute('html', 'dir')).to.equal('rtl');
    expect(await p.getAttribute('[data-testid=queue-lead-phone]', 'dir')).to.equal('ltr');
    await picture(p, 'ar', 'queue-customer-risky');
    await showRecord(p, shops.risky.leadId);
    await picture(p, 'ar', 'lead-show-customer-risky');
  });

  it('When a seller filters the Customers list on risky, Then only the risky customer is listed, with its badge', async () => {
    const p = await pageOf(shops.risky.acc.seller);
    await p.goto(`${app.url}/admin/resources/customers?filters.risky=true`);
    await p.waitForSelector('[data-testid=customer-risk][data-risky=true]');
    expect(await p.locator('tbody tr').count()).to.equal(1);
    expect(await p.locator('tbody tr').innerText()).to.include(PHONES.risky);
    await picture(p, 'en', 'customers-risky');
    await p.goto(`${app.url}/admin/resources/customers?filters.risky=false`);
    await p.waitForSelector('text=Nothing matches.');
  });
});
