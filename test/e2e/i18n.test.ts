import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount, type TestUser } from '../factories.js';
import { seedQueue } from '../queue-fixtures.js';
import { ARTIFACTS, loginAs, shot, useBrowser } from './browser.js';
import { translate } from '../../admin/locale-text.js';
import { formatMoney, formatPercent } from '../../src/locale-format.js';
import { formatInZone } from '../../src/time-zones.js';

/** In the page: the centres of the first characters of its first four numbers, drawn and in a dir="ltr" copy. */
const DRAWN_ORDER = new Function(
  'element',
  `const centres = (el) => {
    const node = el.firstChild;
    return [...node.data.matchAll(/\\d+/g)].slice(0, 4).map((m) => {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + 1);
      const r = range.getBoundingClientRect();
      return r.left + r.width / 2;
    });
  };
  const copy = element.cloneNode(true);
  copy.dir = 'ltr';
  element.parentElement.appendChild(copy);
  const inLtr = centres(copy);
  copy.remove();
  return { shown: centres(element), inLtr };`,
) as (element: Element) => { shown: number[]; inLtr: number[] };

/** The viewport of the pictures in docs/images/i18n/. */
const VIEWPORT = { width: 1366, height: 800 };

describe('the panel in French and Arabic (Chromium)', function () {
  this.timeout(240_000);
  const app = useBrowser();
  const contexts: BrowserContext[] = [];
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
  });

  /** A page in a browser of its own, whose Accept-Language is `locale`. */
  async function browserPage(locale = 'en-US'): Promise<Page> {
    const context = await app.browser.newContext({ viewport: VIEWPORT, locale });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    return page;
  }

  async function signedIn(user: TestUser, locale?: string): Promise<Page> {
    const p = await browserPage(locale);
    await loginAs(p, app.url, user.email, user.password);
    return p;
  }

  /** The top bar's language menu (AdminJS's selector): open it and pick a language by its own name. */
  async function chooseLanguage(p: Page, name: string): Promise<void> {
    await p.goto(`${app.url}/admin`);
    // AdminJS's selector: a text button with the current language's name, its menu listing each in its own name
    const menu = p.locator('[data-css=topbar] .adminjs_DropDownMenu', { hasText: 'Français' });
    await p.locator('[data-css=topbar] button', { hasText: 'English' }).hover();
    await menu.getByText(name, { exact: true }).click();
  }

  async function languageOf(user: TestUser): Promise<string | null> {
    const row = await getCtx().models.User.findByPk(user.id);
    return row!.language;
  }

  async function until(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await check()).to.equal(true);
  }

  async function seeded(): Promise<{ acc: TestAccount; leadId: number; phone: string }> {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const leads = await seedQueue(ctx, acc, [{ status: 'new' }, { status: 'no_answer' }, { status: 'new' }]);
    await ctx.services.kpi.rebuild();
    const lead = await ctx.models.Lead.findByPk(leads[0].id);
    return { acc, leadId: lead!.id, phone: lead!.phone };
  }

  /** The queue page once its counts came (its first request done, so a click is not dropped as a second one). */
  async function openQueue(p: Page): Promise<void> {
    await p.goto(`${app.url}/admin/pages/queue`);
    await p.waitForSelector('[data-testid=queue-counts]');
    await p.waitForFunction(() => !document.querySelector('[data-testid=queue-counts]')?.textContent?.includes('…'));
  }

  /** The lead list, a lead's page, the queue with a lead held and the KPI page, each saved as `<screen>-<lang>`. */
  async function walk(p: Page, lang: string, leadId: number): Promise<Record<string, string>> {
    const seen: Record<string, string> = {};
    await p.goto(`${app.url}/admin/resources/leads`);
    await p.waitForSelector('[data-css=leads-list] tbody tr, table tbody tr');
    seen.list = await p.innerText('body');
    await shot(p, `lead-list-${lang}`, { fullPage: false });
    await p.goto(`${app.url}/admin/resources/leads/records/${leadId}/show`);
    await p.waitForSelector('[data-testid=history-timeline]');
    seen.show = await p.innerText('body');
    await shot(p, `lead-show-${lang}`, { fullPage: false });
    await openQueue(p);
    await p.click('[data-testid=queue-next]');
    await p.waitForSelector('[data-testid=queue-lead]');
    seen.queue = await p.innerText('body');
    seen.queuePhoneDirection = await p
      .locator('[data-testid=queue-lead-phone]')
      .evaluate((e) => getComputedStyle(e).direction);
    await shot(p, `queue-${lang}`, { fullPage: false });
    await p.goto(`${app.url}/admin/pages/kpi`);
    await p.waitForSelector('[data-testid=kpi-totals]');
    await p.waitForSelector('canvas[data-testid=chart-leads-per-day]');
    seen.kpi = await p.innerText('body');
    await shot(p, `kpi-${lang}`, { fullPage: false });
    return seen;
  }

  it('an agent who chooses French in the top bar reads the lead list, a lead, the queue and the KPI page in French', async () => {
    const { acc, leadId } = await seeded();
    const p = await signedIn(acc.agent);
    await chooseLanguage(p, 'Français');
    await until(async () => (await languageOf(acc.agent)) === 'fr');
    expect(await p.getAttribute('html', 'lang')).to.equal('fr');
    const seen = await walk(p, 'fr', leadId);
    expect(seen.list).to.include('Prospects').and.include('Filtrer').and.include('Nouveau');
    expect(seen.list).not.to.include('Filter\n');
    expect(seen.show).to.include('Détails du prospect').and.include('Historique').and.include('Téléphone');
    expect(seen.queue).to.include("File d'appels").and.include('Confirmé').and.include('Passer');
    expect(seen.kpi).to.include('Tableau des KPI').and.include('Taux de confirmation');
    expect(await p.getAttribute('html', 'dir')).to.equal('ltr');
  });

  it('the chosen language follows the user: logged out, then in from another browser, the panel starts in it', async () => {
    const { acc } = await seeded();
    const first = await signedIn(acc.seller);
    await chooseLanguage(first, 'Français');
    await until(async () => (await languageOf(acc.seller)) === 'fr');
    await first.goto(`${app.url}/logout`);
    // another browser whose Accept-Language is English
    const other = await signedIn(acc.seller, 'en-US');
    await other.goto(`${app.url}/admin/resources/leads`);
    expect(await other.getAttribute('html', 'lang')).to.equal('fr');
    await other.waitForSelector('text=Prospects');
  });

  it('in Arabic the panel is right to left: dir=rtl, the sidebar on the right, a phone number left to right', async () => {
    const { acc, leadId, phone } = await seeded();
    await getCtx().models.User.update({ language: 'ar' }, { where: { id: acc.agent.id } });
    const p = await signedIn(acc.agent);
    await p.goto(`${app.url}/admin/resources/leads`);
    expect(await p.getAttribute('html', 'dir')).to.equal('rtl');
    expect(await p.getAttribute('html', 'lang')).to.equal('ar');
    const sidebar = (await p.locator('[data-css=sidebar]').boundingBox())!;
    expect(sidebar.x, 'the sidebar starts past the middle of the page').to.be.greaterThan(VIEWPORT.width / 2);
    const cell = p.locator(`bdi[data-path=phone]`, { hasText: phone }).first();
    expect(await cell.evaluate((e) => getComputedStyle(e).direction)).to.equal('ltr');
    expect(await cell.textContent()).to.equal(phone);
    const seen = await walk(p, 'ar', leadId);
    expect(seen.list).to.include('العملاء المحتملون');
    expect(seen.show).to.include('تفاصيل العميل المحتمل');
    expect(seen.queue).to.include('قائمة الاتصالات').and.include('مؤكد');
    expect(seen.kpi).to.include('لوحة مؤشرات الأداء');
    // the lead the queue held: its phone is a left-to-right link in the Arabic page
    expect(seen.queuePhoneDirection).to.equal('ltr');
  });

  it('the login page follows Accept-Language, and its language links switch it', async () => {
    const fr = await browserPage('fr-FR');
    await fr.goto(`${app.url}/login`);
    expect(await fr.textContent('h1')).to.equal('Connexion');
    expect(await fr.getAttribute('html', 'lang')).to.equal('fr');
    await shot(fr, 'login-fr', { fullPage: false });
    const ar = await browserPage('ar-MA');
    await ar.goto(`${app.url}/login`);
    expect(await ar.textContent('h1')).to.equal('تسجيل الدخول');
    expect(await ar.getAttribute('html', 'dir')).to.equal('rtl');
    expect(await ar.evaluate(() => getComputedStyle(document.querySelector('#email')!).direction)).to.equal('ltr');
    await shot(ar, 'login-ar', { fullPage: false });
    // the English link, then a reload: the choice is kept in the cookie
    await ar.click('a[hreflang=en]');
    expect(await ar.textContent('h1')).to.equal('Log in');
    await ar.goto(`${app.url}/login`);
    expect(await ar.textContent('h1')).to.equal('Log in');
  });

  /**
   * Where the numbers of a date's text are drawn, left to right on the screen: [day, month, year, hour] as the
   * centres of their first characters. A `dir="ltr"` copy of the same element is measured too: the order a
   * left-to-right isolate would draw (what the panel showed before issue 41).
   */
  async function drawnOrder(p: Page, selector: string): Promise<{ shown: number[]; inLtr: number[] }> {
    // a text, not a function: the test's compiler would name the inner arrow functions with a helper the page lacks
    return p.locator(selector).first().evaluate(DRAWN_ORDER);
  }

  /** Right to left: the day drawn rightmost, then the month, the year, the time leftmost. */
  const readsRightToLeft = ([day, month, year, hour]: number[]) => day > month && month > year && year > hour;

  it('in Arabic the queue card and the customer record write their dates right to left, as Intl wrote them', async () => {
    const ctx = getCtx();
    const { acc } = await seeded();
    await ctx.models.User.update({ language: 'ar' }, { where: { id: acc.agent.id } });
    const p = await signedIn(acc.agent);
    await openQueue(p);
    await p.click('[data-testid=queue-next]');
    const card = await p.waitForSelector('[data-testid=queue-lead]');
    const reference = (await card.getAttribute('data-reference'))!;
    const lead = (await ctx.models.Lead.findOne({ where: { reference } }))!;
    const account = (await ctx.models.Account.findByPk(acc.id))!;
    const zone = account.time_zone;
    // the text read back from the page, in logical order: Intl's Arabic for ar-MA, its right-to-left marks kept
    const created = await p.innerText('[data-testid=queue-lead-created]');
    expect(created).to.equal(formatInZone(lead.created_at, zone, 'ar'));
    expect(created).to.match(/^\d{1,2}\u200f\/\d{1,2}\u200f\/\d{4}، \d{2}:\d{2} \(/);
    expect(created).not.to.match(/[\u200e\u202a\u202d\u2066]/);
    const firstSeen = await p.innerText('[data-testid=customer-first-seen]');
    expect(firstSeen).to.match(/^\d{1,2}\u200f\/\d{1,2}\u200f\/\d{4}، \d{2}:\d{2} \(/);
    // drawn right to left, in the page's direction (no left-to-right isolate around it)
    for (const selector of ['[data-testid=queue-lead-created]', '[data-testid=customer-first-seen]']) {
      expect(await p.locator(selector).evaluate((e) => getComputedStyle(e).direction)).to.equal('rtl');
      const order = await drawnOrder(p, selector);
      expect(readsRightToLeft(order.shown), `${selector} drawn ${order.shown.join(', ')}`).to.equal(true);
      expect(readsRightToLeft(order.inLtr), 'a left-to-right isolate scrambles it').to.equal(false);
    }
    // the phone, a Latin identifier, stays left to right
    expect(await p.locator('[data-testid=queue-lead-phone]').evaluate((e) => getComputedStyle(e).direction)).to.equal(
      'ltr',
    );
    await p.locator('[data-testid=customer-record]').scrollIntoViewIfNeeded();
    await shot(p, 'ar-customer-date', { fullPage: false });
  });

  /** A seller of a new account who reads Arabic or French, and one new lead with a Latin address. */
  async function sellerIn(language: string): Promise<{ p: Page; acc: TestAccount; leadId: number; address: string }> {
    const { acc, leadId } = await seeded();
    const address = '12 Rue Ibn Batouta, Casablanca';
    await getCtx().models.Lead.update({ address, area: 'Maarif' }, { where: { id: leadId } });
    await getCtx().models.User.update({ language }, { where: { id: acc.seller.id } });
    return { p: await signedIn(acc.seller), acc, leadId, address };
  }

  it('in Arabic the KPI charts are mirrored: the first day drawn right of the last, the y axis on the right', async () => {
    const { p } = await sellerIn('ar');
    await p.goto(`${app.url}/admin/pages/kpi`);
    for (const chart of ['leads-per-day', 'rates']) {
      const canvas = await p.waitForSelector(`canvas[data-testid=chart-${chart}][data-first-x]`);
      const at = async (name: string) => Number(await canvas.getAttribute(`data-${name}`));
      expect(await canvas.getAttribute('data-direction')).to.equal('rtl');
      expect(await at('first-x'), `${chart}: time runs right to left`).to.be.greaterThan(await at('last-x'));
      expect(await canvas.getAttribute('data-y-axis-side')).to.equal('right');
    }
    await p.locator('canvas[data-testid=chart-leads-per-day]').scrollIntoViewIfNeeded();
    await shot(p, 'ar-kpi-chart', { fullPage: false });
  });

  it('in Arabic a Latin address and an e-mail keep their own order, and the country is named in Arabic', async () => {
    const { p, acc, leadId, address } = await sellerIn('ar');
    await p.goto(`${app.url}/admin/resources/leads/records/${leadId}/show`);
    const shown = p.locator('bdi[data-path=address]');
    await shown.waitFor();
    expect(await shown.innerText()).to.equal(address);
    expect(await shown.evaluate((e) => getComputedStyle(e).direction)).to.equal('ltr');
    // drawn in its order: "12" left of "Casablanca"
    // no named function inside: the test's compiler would wrap it in a helper the page lacks
    const [start, end] = await shown.evaluate((e) => {
      const node = e.firstChild!;
      const range = document.createRange();
      range.setStart(node, 0);
      range.setEnd(node, 1);
      const first = range.getBoundingClientRect().left;
      range.setStart(node, (node.textContent ?? '').length - 1);
      range.setEnd(node, (node.textContent ?? '').length);
      return [first, range.getBoundingClientRect().left];
    });
    expect(start, 'the address starts on the left').to.be.lessThan(end);
    await shown.scrollIntoViewIfNeeded();
    await shot(p, 'ar-lead-show', { fullPage: false });
    // the seller's own e-mail in the users list, inside the Arabic page
    await p.goto(`${app.url}/admin/resources/users`);
    const email = p.locator('bdi[data-path=email]', { hasText: acc.seller.email }).first();
    expect(await email.innerText()).to.equal(acc.seller.email);
    expect(await email.evaluate((e) => getComputedStyle(e).direction)).to.equal('ltr');
    await p.goto(`${app.url}/admin/pages/account`);
    await p.waitForSelector('[data-testid=account-country]:not(:text("…"))');
    expect(await p.innerText('[data-testid=account-country]')).to.equal('المغرب');
  });

  it('in French the country is named, not its code MA, and an export says its filters in words', async () => {
    const { p } = await sellerIn('fr');
    await p.goto(`${app.url}/admin/pages/account`);
    await p.waitForSelector('[data-testid=account-country]:not(:text("…"))');
    expect(await p.innerText('[data-testid=account-country]')).to.equal('Maroc');
    expect(await p.innerText('[data-testid=account-page]')).not.to.match(/\bMA\b/);
    await shot(p, 'fr-codes-in-words', { fullPage: false });
  });

  it('in French the queue card writes its amounts 200,00 and the KPI page its rates 33,3 %', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await seedQueue(ctx, acc, [{ status: 'new' }, { status: 'confirmed' }, { status: 'no_answer' }]);
    await ctx.services.kpi.rebuild();
    await ctx.models.User.update({ language: 'fr' }, { where: { id: acc.agent.id } });
    const p = await signedIn(acc.agent);
    await openQueue(p);
    await p.click('[data-testid=queue-next]');
    await p.waitForSelector('[data-testid=products-total]');
    expect(await p.innerText('[data-testid=products-total]'))
      .to.equal(formatMoney(200, 'fr'))
      .and.equal('200,00');
    await p.locator('[data-testid=products-table]').scrollIntoViewIfNeeded();
    await shot(p, 'fr-queue-amount', { fullPage: false });
    await p.goto(`${app.url}/admin/pages/kpi`);
    const tiles = await (await p.waitForSelector('[data-testid=kpi-totals]')).innerText();
    // one confirmed of three leads: 33,3 % with the no-break space Intl writes in French, no decimal point
    expect(tiles)
      .to.include(formatPercent(100 / 3, 'fr'))
      .and.include('33,3\u00a0%');
    await shot(p, 'fr-kpi-percent', { fullPage: false });
    // the filters' selects: react-select's placeholder in French, not its "Select..."
    await p.goto(`${app.url}/admin/resources/leads`);
    await p.click('[data-css=leads-filter-button]');
    const choose = translate('fr', 'components.common.selectPlaceholder');
    await p.waitForSelector(`text=${choose}`);
    expect(await p.innerText('body')).not.to.include('Select...');
    await shot(p, 'fr-filter-select', { fullPage: false });
  });

  after(() => {
    // a set of the pictures for docs/admin-panel.md ("Languages")
    const docs = path.resolve('docs/images/i18n');
    if (!process.env.UPDATE_DOC_IMAGES) return;
    fs.mkdirSync(docs, { recursive: true });
    for (const screen of ['lead-list', 'lead-show', 'queue', 'kpi', 'login'])
      for (const lang of ['fr', 'ar']) {
        const file = path.join(ARTIFACTS, `${screen}-${lang}.png`);
        if (fs.existsSync(file)) fs.copyFileSync(file, path.join(docs, `${screen}-${lang}.png`));
      }
  });
  /** A seller of a new account with one new lead, who chose `language`, on that lead's edit form. */
  async function editingIn(language: string): Promise<{ p: Page; leadId: number }> {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    await ctx.models.User.update({ language }, { where: { id: acc.seller.id } });
    const p = await signedIn(acc.seller);
    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/edit`);
    await p.waitForSelector('#full_name');
    return { p, leadId: lead.id };
  }

  it('a refused form says its field error in French: Call later without a call-back time', async () => {
    const { p } = await editingIn('fr');
    const status = p.locator('input[role=combobox]').nth(0);
    await status.click();
    await status.fill(translate('fr', 'labels.status.call_later'));
    await p.keyboard.press('Enter');
    await p.click('button[type=submit]');
    const field = translate('fr', 'properties.action_date');
    const error = translate('fr', 'messages.validation.requiredIf', {
      field,
      value: translate('fr', 'labels.status.call_later'),
    });
    await p.waitForSelector(`text=${error}`);
    expect(error).to.equal('Rappeler le est obligatoire pour À rappeler');
    expect(await p.textContent('body')).to.include(translate('fr', 'messages.validation.summary'));
  });

  it('the notice after a save is in Arabic for a user who chose Arabic', async () => {
    const { p, leadId } = await editingIn('ar');
    await p.fill('#full_name', 'Salma Idrissi');
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
    await p.waitForSelector(`text=${translate('ar', 'messages.successfullyUpdated')}`);
    expect(await p.textContent('body')).not.to.include('Saved.');
    expect((await getCtx().models.Lead.findByPk(leadId))!.full_name).to.equal('Salma Idrissi');
  });
});
