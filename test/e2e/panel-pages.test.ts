import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser, type TestAccount, type TestUser } from '../factories.js';
import { seedQueue } from '../queue-fixtures.js';
import { shot, useBrowser } from './browser.js';
import { wallTime } from '../../src/time-zones.js';

/** The viewport of the pictures in docs/images/ (docs/admin-panel.md): wide enough for AdminJS's sidebar. */
const VIEWPORT = { width: 1366, height: 800 };

/** Custom data a lead carries from its landing page, as the queue and the show page list it. */
const UTM = [{ key: 'utm_source', value: 'facebook' }];

/** The date `back` days ago in the account's time zone (the KPI page's days), as YYYY-MM-DD. */
async function accountDay(accountId: number, back: number): Promise<string> {
  const zone = (await getCtx().models.Account.findByPk(accountId))!.time_zone;
  return wallTime(new Date(Date.now() - back * 86_400_000), zone).slice(0, 10);
}

describe('admin panel pages in Chromium: work queue, lead pages, KPI dashboard', function () {
  this.timeout(240_000);
  const app = useBrowser();

  /** A signed-in page in its own browser context (its own cookies: two agents are two people). */
  const pageOf = (user: TestUser): Promise<Page> => app.signedIn(user, { viewport: VIEWPORT });

  async function openQueue(p: Page): Promise<void> {
    await p.goto(`${app.url}/admin/pages/queue`);
    await p.waitForSelector('[data-testid=queue-counts]');
    await p.waitForFunction(() => !document.querySelector('[data-testid=queue-counts]')?.textContent?.includes('…'));
  }

  const heldReference = (p: Page) => p.getAttribute('[data-testid=queue-lead]', 'data-reference');

  it('an agent works through five leads from the queue with the keyboard only; the confirmed one shows its order', async () => {
    const ctx = getCtx();
    const acc: TestAccount = await makeAccount(ctx);
    const seeded = await seedQueue(
      ctx,
      acc,
      Array.from({ length: 5 }, () => ({ status: 'new' })),
    );
    await ctx.models.Lead.update({ data: UTM }, { where: { id: seeded.map((l) => l.id) } });
    const p = await pageOf(acc.agent);
    await openQueue(p);
    expect(await p.textContent('[data-testid=queue-counts]')).to.match(/New leads\s*5/);

    await p.keyboard.press('Space');
    await p.waitForSelector('[data-testid=queue-lead]');
    const first = await heldReference(p);
    expect(first).to.equal(seeded[0].reference);
    // Letters typed in the note are text, not outcomes.
    await p.click('[data-testid=queue-note]');
    await p.keyboard.type('Wants it next week, call at noon');
    expect(await heldReference(p)).to.equal(first);
    await shot(p, 'queue', { fullPage: false });
    await p.keyboard.press('Tab');

    const outcomes = ['c', 'n', 'w', 'l', 'x'];
    const worked: string[] = [];
    for (const key of outcomes) {
      const before = (await heldReference(p))!;
      worked.push(before);
      await p.keyboard.press(key);
      await p.waitForFunction(
        (ref) => document.querySelector('[data-testid=queue-lead]')?.getAttribute('data-reference') !== ref,
        before,
      );
    }
    await p.waitForSelector('text=Nothing waits in the queue right now.');
    expect(worked).to.deep.equal(seeded.map((l) => l.reference));

    const leads = await ctx.models.Lead.findAll({ where: { id: seeded.map((l) => l.id) }, order: [['id', 'ASC']] });
    const byRef = new Map(leads.map((l) => [l.reference, l]));
    expect(worked.map((r) => byRef.get(r)!.status)).to.deep.equal([
      'confirmed',
      'no_answer',
      'wrong',
      'call_later',
      'canceled',
    ]);
    expect(byRef.get(worked[3])!.action_date!.getTime()).to.be.greaterThan(Date.now());
    const history = await ctx.models.LeadHistory.findOne({ where: { lead_id: seeded[0].id, new_status: 'confirmed' } });
    expect(history!.note).to.equal('Wants it next week, call at noon');

    // The confirmed lead became an order, and its page says so, with the timeline and the products table.
    const order = await ctx.models.Order.findOne({ where: { account_id: acc.id, lead_reference: worked[0] } });
    expect(order, 'an order for the confirmed lead').to.not.equal(null);
    const show = await pageOf(acc.seller);
    await show.goto(`${app.url}/admin/resources/leads/records/${seeded[0].id}/show`);
    await show.waitForSelector(`text=${order!.reference}`);
    await show.waitForSelector('[data-testid=history-timeline] >> text=Wants it next week');
    await show.waitForSelector('[data-testid=products-total]');
    expect(await show.locator('[data-testid=history-timeline] [data-status=confirmed]').count()).to.equal(1);
    expect(await show.locator('text=Export CSV').count(), 'no list actions on a record page').to.equal(0);
    // the picture shows the order, the products and the timeline
    await show.$eval('[data-testid=products-table]', (t) => t.scrollIntoView({ block: 'center' }));
    await shot(show, 'lead-show', { fullPage: false });

    await show.goto(`${app.url}/admin/resources/leads`);
    await show.waitForSelector(`text=${worked[4]}`);
    const statuses = await show
      .locator('tbody [data-status]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    // newest first: the seeded leads were created oldest first
    expect(statuses.length).to.equal(5);
    const refs = await show.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
    expect(refs[0]).to.include(seeded[4].reference);
    await shot(show, 'leads-list-palette', { fullPage: false });
  });

  it('two agents asking for the next lead at the same time get different leads; a refusal is shown in words', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await seedQueue(ctx, acc, [{ status: 'new' }, { status: 'new' }, { status: 'new' }]);
    const second = await makeUser(ctx, acc.id, 'agent');
    const [p1, p2] = await Promise.all([pageOf(acc.agent), pageOf(second)]);
    await Promise.all([openQueue(p1), openQueue(p2)]);
    await Promise.all([p1.click('[data-testid=queue-next]'), p2.click('[data-testid=queue-next]')]);
    await Promise.all([p1.waitForSelector('[data-testid=queue-lead]'), p2.waitForSelector('[data-testid=queue-lead]')]);
    const [r1, r2] = await Promise.all([heldReference(p1), heldReference(p2)]);
    expect(r1).to.be.a('string');
    expect(r1).to.not.equal(r2);

    // A refusal is shown in words and the lead stays on screen to correct: Call later without a call-back time.
    await p1.fill('input[type=datetime-local]', '');
    await p1.click('h2');
    await p1.keyboard.press('l');
    const refusal = await p1.waitForSelector('[data-testid=queue-refusal]');
    expect(await refusal.textContent()).to.equal('Call back at is required for Call later');
    expect(await heldReference(p1)).to.equal(r1);
  });

  it('the KPI page draws its charts with chart.js from the panel bundle; no request leaves the page', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seeded = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 60 * 24 * 3 },
      { status: 'confirmed', createdMinutesAgo: 60 * 24 * 2 },
      { status: 'no_answer', createdMinutesAgo: 60 * 24 },
      { status: 'wrong', createdMinutesAgo: 30 },
    ]);
    expect(seeded).to.have.length(4);
    await ctx.services.kpi.rebuild();
    const p = await pageOf(acc.seller);
    const requests: string[] = [];
    p.on('request', (r) => requests.push(r.url()));
    await p.goto(`${app.url}/admin/pages/kpi`);
    await p.waitForSelector('[data-testid=kpi-totals]');
    await p.waitForSelector('canvas[data-testid=chart-leads-per-day]');
    // the report's three charts (the speed-to-lead and return-rate sections draw theirs once their answer is in)
    const reportCharts = await p.$$eval(
      'canvas',
      (all) => all.filter((c) => !c.closest('[data-testid=kpi-speed], [data-testid=kpi-returns]')).length,
    );
    expect(reportCharts).to.equal(3);
    // chart.js drew: the canvas has painted pixels
    const painted = await p.$eval('canvas[data-testid=chart-leads-per-day]', (c) => {
      const { data } = (c as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, c.clientWidth, c.clientHeight);
      return data.some((v, i) => i % 4 === 3 && v > 0);
    });
    expect(painted).to.equal(true);
    expect(await p.textContent('[data-testid=kpi-totals]')).to.match(/Leads\s*4/);
    // the breakdown is the design system's select: typed into and picked with Enter
    await p.locator('[data-testid=kpi-by] input').fill('City');
    await p.keyboard.press('Enter');
    await p.waitForSelector('[data-testid=kpi-breakdown] >> th >> text=City');
    await p.click('[data-testid=kpi-last-7]');
    await p.waitForLoadState('networkidle');
    await shot(p, 'kpi', { fullPage: false });
    const origin = new URL(app.url).origin;
    const foreign = requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin);
    expect(foreign, 'requests to other origins').to.deep.equal([]);
  });

  it("the KPI controls are the design system's, the active period is the selected button and dates are ISO", async () => {
    const acc = await makeAccount(getCtx());
    const p = await pageOf(acc.seller);
    await p.goto(`${app.url}/admin/pages/kpi`);
    await p.waitForSelector('[data-testid=kpi-totals]');
    const pressed = () => p.locator('[data-testid=kpi-controls] button[aria-pressed=true]').allTextContents();
    expect(await pressed(), 'the page opens on the last 30 days').to.deep.equal(['Last 30 days']);
    // no unstyled native controls: the period is buttons, the breakdown and account selects, dates a picker
    expect(
      await p.locator('[data-testid=kpi-controls] select, [data-testid=kpi-controls] input[type=date]').count(),
    ).to.equal(0);
    await p.click('[data-testid=kpi-today]');
    expect(await pressed()).to.deep.equal(['Today']);
    await p.click('[data-testid=kpi-custom]');
    expect(await pressed()).to.deep.equal(['Custom']);
    // the account's day, not UTC's (they differ for an hour a day in Casablanca)
    const today = await accountDay(acc.id, 0);
    expect(await p.inputValue('[data-testid=kpi-from] input')).to.equal(today);
    expect(await p.inputValue('[data-testid=kpi-to] input')).to.equal(today);
    await p.click('[data-testid=kpi-last-7]');
    expect(await pressed()).to.deep.equal(['Last 7 days']);
    expect(await p.locator('[data-testid=kpi-from]').count(), 'the dates show for a custom period').to.equal(0);
    await p.click('[data-testid=kpi-custom]');
    await p.mouse.move(0, 0);
    await p.waitForTimeout(300); // the buttons' colour transition (0.1 s)
    await shot(p, 'kpi-custom-period', { fullPage: false });
  });

  it('the KPI page shows the period asked last, even when the answer for an earlier one comes late', async () => {
    const acc = await makeAccount(getCtx());
    const p = await pageOf(acc.seller);
    await p.goto(`${app.url}/admin/pages/kpi`);
    await p.waitForSelector('[data-testid=kpi-totals]');
    const [week6, day89] = [await accountDay(acc.id, 6), await accountDay(acc.id, 89)];
    const week = `from=${week6}`;
    // the answer for the last 7 days is held back until the one for the last 90 days is on screen
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await p.route(/\/admin\/api\/pages\/kpi\?/, async (route) => {
      if (route.request().url().includes(week)) await held;
      await route.continue();
    });
    await p.click('[data-testid=kpi-last-7]');
    await p.click('[data-testid=kpi-last-90]');
    const shows = (from: string) =>
      document.querySelector('[data-testid=kpi-page]')?.textContent?.includes(`(${from} to`);
    await p.waitForFunction(shows, day89);
    const late = p.waitForResponse((r) => r.url().includes(week));
    release();
    await late;
    await p.waitForTimeout(500);
    expect(await p.evaluate(shows, day89), 'the 90-day figures stay').to.equal(true);
  });

  it('the home page lays its tiles on a grid and links to the queue and the KPI page', async () => {
    const acc = await makeAccount(getCtx());
    const p = await pageOf(acc.seller);
    await p.waitForSelector('[data-testid=leadflow-dashboard]');
    await p.waitForSelector('a[href="/admin/pages/queue"]');
    await p.waitForSelector('a[href="/admin/pages/kpi"]');
    const widths = await p
      .locator('[data-testid=leadflow-dashboard] a, [data-testid=leadflow-dashboard] div[style*="border-top"]')
      .evaluateAll((els) => [...new Set(els.map((e) => Math.round(e.getBoundingClientRect().width)))]);
    expect(widths.length, `tile widths ${widths}`).to.equal(1);
    await shot(p, 'home', { fullPage: false });
  });
});
