import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { seedQueue } from '../queue-fixtures.js';
import { shot, useBrowser } from './browser.js';

/** Types into the n-th AdminJS select of the form and takes the first match. */
async function pick(page: Page, selectIndex: number, text: string): Promise<void> {
  const input = page.locator('input[role=combobox]').nth(selectIndex);
  await input.click();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

describe('panel forms and times in Chromium: typed values kept, times in the account zone', function () {
  this.timeout(180_000);
  const app = useBrowser();

  it('When a lead is saved as Call later without a time, Then what was typed stays, the error is under Call back at, nothing is saved; with a time it is saved and shown in the account zone', async () => {
    const ctx = getCtx();
    const acc: TestAccount = await makeAccount(ctx); // MA: Africa/Casablanca
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const p = await app.signedIn(acc.seller, { timeout: 60_000 });
    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/edit`);
    await p.waitForSelector('#full_name');
    await p.fill('#full_name', 'Typed Over Name');
    await pick(p, 0, 'call later');
    expect(await p.textContent('[data-testid=zone-action_date]')).to.equal('Africa/Casablanca');
    await p.click('button[type=submit]');
    await p.waitForSelector('text=Call back at is required for Call later');
    await shot(p, 'lead-edit-call-later-refused');
    expect(await p.inputValue('#full_name'), 'the typed name is kept').to.equal('Typed Over Name');
    expect(await p.textContent('form'), 'Status stays as chosen').to.include('Call later');
    expect(await p.textContent('body')).to.not.include('Saved.');
    const stored = (await ctx.models.Lead.findByPk(lead.id))!;
    expect([stored.status, stored.full_name]).to.deep.equal(['new', 'Queued Customer 0']);

    await p.fill('#action_date', '2030-12-01T14:30');
    await Promise.all([p.waitForURL(/\/records\/\d+\/show/), p.click('button[type=submit]')]);
    await p.waitForSelector('text=1 Dec 2030, 14:30 (Africa/Casablanca)');
    await shot(p, 'lead-show-call-back-zone');
    const saved = (await ctx.models.Lead.findByPk(lead.id))!;
    expect(saved.status).to.equal('call_later');
    expect(saved.full_name).to.equal('Typed Over Name');
    expect(saved.action_date!.toISOString()).to.equal('2030-12-01T13:30:00.000Z');
  });

  it("When an agent sets Call later in the queue, Then the picker is in the account's zone and the time is stored in UTC", async () => {
    const ctx = getCtx();
    const acc: TestAccount = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const p = await app.signedIn(acc.agent, { timeout: 60_000 });
    await p.goto(`${app.url}/admin/pages/queue`);
    await p.getByRole('button', { name: /Next lead/ }).click();
    await p.waitForSelector('[data-testid=queue-lead]');
    expect(await p.textContent('[data-testid=queue-zone]')).to.equal('Africa/Casablanca');
    expect(await p.textContent('[data-testid=queue-lead]')).to.include('(Africa/Casablanca)');
    await p.fill('[data-testid=queue-call-at]', '2027-06-01T10:00');
    await shot(p, 'queue-call-back-zone', { fullPage: false });
    await p.click('button[data-status=call_later]');
    await p.waitForSelector('[data-testid=queue-done]');
    const saved = (await ctx.models.Lead.findByPk(lead.id))!;
    expect(saved.status).to.equal('call_later');
    expect(saved.action_date!.toISOString()).to.equal('2027-06-01T09:00:00.000Z');
  });

  it('When a seller of an account in Europe/Paris opens the list and a lead, Then they read Paris times with the zone', async () => {
    const ctx = getCtx();
    const acc: TestAccount = await makeAccount(ctx);
    await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: 'Europe/Paris' });
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    await ctx.models.Lead.update({ action_date: new Date('2026-12-01T13:30:00Z') }, { where: { id: lead.id } });
    const p = await app.signedIn(acc.seller, { timeout: 60_000 });
    await p.goto(`${app.url}/admin/resources/leads`);
    await p.waitForSelector('text=/\\(Europe\\/Paris\\)/');
    await shot(p, 'leads-list-paris');
    await p.goto(`${app.url}/admin/resources/leads/records/${lead.id}/show`);
    await p.waitForSelector('text=1 Dec 2026, 14:30 (Europe/Paris)');
    expect(await p.textContent('[data-testid=history-timeline]')).to.include('(Europe/Paris)');
    await shot(p, 'lead-show-paris');
  });
});
