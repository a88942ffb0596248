import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount, type TestUser } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login, panelApi, type SessionClient } from '../session.js';

/** Issue 32 attacked as a hostile tenant and a careless client: each refusal a clear 4xx, nothing changed. */
describe('issue 32 attack: wall times, the import account, the language route', function () {
  this.timeout(120_000);
  let web: Awaited<ReturnType<typeof startTestServer>>;
  let a: TestAccount;
  let b: TestAccount;
  let admin: TestUser;
  before(async () => {
    web = await startTestServer();
    a = await makeAccount(getCtx());
    b = await makeAccount(getCtx());
    admin = await makeAdmin(getCtx());
  });
  after(async () => web.close());

  const newLead = (c: SessionClient, phone: string, actionDate: string) =>
    panelApi(c, web.url, 'POST', 'leads/actions/new', {
      phone,
      full_name: 'Wall time',
      status: 'call_later',
      action_date: actionDate,
      'products.0.sku': a.skus.active[0],
      'products.0.quantity': '1',
      'products.0.price': '10',
    });
  const leadsOf = (phone: string) => getCtx().models.Lead.count({ where: { phone } });

  it('When a call-back time names no real day (30 February, the year 0099, 24:00), Then the form refuses it under its field once and saves nothing', async () => {
    const seller = await login(web.url, a.seller.email, a.seller.password);
    for (const [i, typed] of ['2027-02-30T10:00', '0099-06-01T10:00', '2027-06-01T24:00'].entries()) {
      const phone = `+2126700300${10 + i}`;
      const res = await newLead(seller, phone, typed);
      expect(res.status, typed).to.equal(200);
      expect(res.body.notice.type, typed).to.equal('error');
      const words = res.body.record.errors.action_date.message as string;
      expect(words, typed).to.equal('Call back at must be a date and time');
      expect(await leadsOf(phone), typed).to.equal(0);
    }
    // a time the clocks skip (Paris, 28 March 2027, 02:30) is the instant an hour later, not refused nor moved a day
    await getCtx().services.accounts.updateAccount(a.seller.actor, a.id, { time_zone: 'Europe/Paris' });
    const gap = await newLead(seller, '+212670030020', '2027-03-28T02:30');
    expect(gap.body.notice.type).to.equal('success');
    expect(gap.body.record.params.action_date).to.equal('2027-03-28T01:30:00.000Z');
    await getCtx().services.accounts.updateAccount(a.seller.actor, a.id, { time_zone: 'Africa/Casablanca' });
  });

  it("When the queue's call-back time names no real day, Then the outcome is refused under the field and the lead keeps its status", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212670030030',
          full_name: 'Queue wall',
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }],
        },
      ],
    });
    const agent = await login(web.url, acc.agent.email, acc.agent.password);
    const queue = async (json: unknown) =>
      (await agent.fetch('/admin/api/pages/queue', { method: 'POST', json, headers: { origin: web.url } })).json();
    const held = (await queue({ op: 'next' })).lead;
    const answer = await queue({
      op: 'outcome',
      lead_id: held.id,
      status: 'call_later',
      action_date: '2027-02-30T10:00',
    });
    expect(answer.fields).to.have.property('action_date');
    const lead = (await ctx.models.Lead.findByPk(held.id))!;
    expect([lead.status, lead.action_date]).to.deep.equal(['new', null]);
  });

  it('When an admin uploads an import without choosing the account, Then it is refused under account_id and no run is made', async () => {
    const ctx = getCtx();
    const c = await login(web.url, admin.email, admin.password);
    const runs = await ctx.models.ImportRun.count();
    const form = new FormData();
    form.append('file', new Blob([`phone,sku\n+212670030040,${b.skus.active[0]}\n`]), 'leads.csv');
    const res = await c.fetch('/leads/import', { method: 'POST', body: form });
    expect(res.status).to.equal(422);
    expect((await res.json()).errors.account_id).to.deep.equal(['The account_id field is required.']);
    expect(await ctx.models.ImportRun.count()).to.equal(runs);
  });

  it('When the language route gets a body without the field, Then it is a 422 and the chosen language stays', async () => {
    const c = await login(web.url, a.seller.email, a.seller.password);
    expect((await c.json('POST', '/settings/language', { language: 'fr' })).status).to.equal(200);
    for (const body of [{}, { lang: 'ar' }]) {
      const res = await c.json('POST', '/settings/language', body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body.errors.language).to.deep.equal(['The language field is required.']);
    }
    expect((await getCtx().models.User.findByPk(a.seller.id))!.language).to.equal('fr');
    // an explicit null still follows the browser again
    expect((await c.json('POST', '/settings/language', { language: null })).body).to.deep.equal({
      data: { language: null },
    });
  });
  it("When an admin names an account id past PostgreSQL's integers on the queue page, Then it is refused under account_id, never a 500", async () => {
    const c = await login(web.url, admin.email, admin.password);
    const page = (init: RequestInit & { json?: unknown } = {}, query = '') =>
      c.fetch(`/admin/api/pages/queue${query}`, { ...init, headers: { origin: web.url } });
    for (const res of [
      await page({}, '?account_id=2147483648'),
      await page({ method: 'POST', json: { op: 'next', account_id: 2147483648 } }),
    ]) {
      expect(res.status).to.equal(200);
      expect((await res.json()).fields).to.have.property('account_id');
    }
  });
});
