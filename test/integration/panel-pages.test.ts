import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { claimsOf, seedQueue } from '../queue-fixtures.js';
import { login, sessionClient, type SessionClient } from '../session.js';
import { formatInZone, wallTime } from '../../src/time-zones.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
type Json = Record<string, any>;

/**
 * The panel's custom pages (work queue, KPI dashboard) through AdminJS's page API, as their components call it:
 * GET and POST /admin/api/pages/<name>, with the session cookie and a same-origin Origin header.
 */
describe('admin panel pages: the work queue and the KPI handlers', function () {
  this.timeout(120_000);
  let web: Server;
  let a: TestAccount;
  let b: TestAccount;
  let aLeads: { id: number; reference: string }[];
  let bLeads: { id: number; reference: string }[];

  const page = async (c: SessionClient, method: 'GET' | 'POST', path: string, json?: Json, origin = web.url) => {
    const res = await c.fetch(`/admin/api/pages/${path}`, {
      method,
      headers: { origin, 'x-requested-with': 'XMLHttpRequest' },
      ...(json ? { json } : {}),
    });
    const text = await res.text();
    let body: Json = {};
    try {
      body = JSON.parse(text);
    } catch {
      /* the status says enough */
    }
    return { status: res.status, text, body };
  };

  before(async () => {
    web = await startTestServer();
    const ctx = getCtx();
    a = await makeAccount(ctx);
    b = await makeAccount(ctx);
    aLeads = await seedQueue(ctx, a, [
      { status: 'new' },
      { status: 'new' },
      { status: 'call_later', actionInMinutes: -5 },
    ]);
    bLeads = await seedQueue(ctx, b, [{ status: 'new' }, { status: 'new' }]);
  });
  after(async () => {
    await web.close();
  });

  it('When an agent asks for the next lead, Then the due call-back comes first, held until the claim ends, with its history', async () => {
    const agent = await login(web.url, a.agent.email, a.agent.password);
    const counts = await page(agent, 'GET', 'queue');
    expect(counts.status).to.equal(200);
    expect(counts.body.counts).to.include({ due_call_later: 1, new: 2 });
    const next = await page(agent, 'POST', 'queue', { op: 'next' });
    expect(next.body.lead.reference).to.equal(aLeads[2].reference);
    expect(next.body.lead.history[0]).to.have.property('note');
    expect(next.body.lead.claim_expires_at).to.be.a('string');
    expect(next.body).to.not.have.property('accounts');
  });

  it('When an outcome is set, Then the next lead comes in the same answer, and a confirmed lead names its order', async () => {
    const seller = await login(web.url, a.seller.email, a.seller.password);
    const first = await page(seller, 'POST', 'queue', { op: 'next' });
    const held = first.body.lead;
    const done = await page(seller, 'POST', 'queue', {
      op: 'outcome',
      lead_id: held.id,
      status: 'confirmed',
      note: 'Paid on delivery',
    });
    expect(done.body.done).to.include({ reference: held.reference, status: 'confirmed' });
    expect(done.body.done.order_reference).to.match(/^OR/);
    expect(done.body.lead.reference).to.not.equal(held.reference);
    const order = await getCtx().models.Order.findOne({ where: { account_id: a.id, lead_reference: held.reference } });
    expect(order!.reference).to.equal(done.body.done.order_reference);
  });

  it('When an outcome is refused (no call-back time, another agent holds the lead), Then the page says why in words', async () => {
    await seedQueue(getCtx(), a, [{ status: 'new', createdMinutesAgo: 5000 }]);
    const agent = await login(web.url, a.agent.email, a.agent.password);
    const held = (await page(agent, 'POST', 'queue', { op: 'next' })).body.lead;
    const noDate = await page(agent, 'POST', 'queue', { op: 'outcome', lead_id: held.id, status: 'call_later' });
    expect(noDate.status).to.equal(200);
    expect(noDate.body.refusal).to.equal('Call back at is required for Call later');
    expect(noDate.body).to.not.have.property('lead');
    const seller = await login(web.url, a.seller.email, a.seller.password);
    const taken = await page(seller, 'POST', 'queue', { op: 'outcome', lead_id: held.id, status: 'wrong' });
    expect(taken.body.refusal).to.equal('Another agent is working on this lead.');
    expect(taken.body.lead).to.equal(null);
    expect((await getCtx().models.Lead.findByPk(held.id))!.status).to.not.equal('wrong');
  });

  for (const role of ['seller', 'agent'] as const) {
    it(`When a ${role} posts another account's id or lead to the queue and KPI pages, Then nothing of it is seen or changed`, async () => {
      const ctx = getCtx();
      const c = await login(web.url, a[role].email, a[role].password);
      const before = (await ctx.models.Lead.findAll({ where: { account_id: b.id }, order: [['id', 'ASC']] })).map(
        (l) => `${l.id}:${l.status}`,
      );
      const answers = [
        await page(c, 'GET', `queue?account_id=${b.id}`),
        await page(c, 'POST', 'queue', { op: 'next', account_id: b.id }),
        await page(c, 'POST', 'queue', { op: 'counts', account_id: String(b.id) }),
        await page(c, 'POST', 'queue', { op: 'outcome', lead_id: bLeads[0].id, status: 'canceled' }),
        await page(c, 'POST', 'queue', { op: 'skip', lead_id: bLeads[1].id }),
        await page(c, 'POST', 'queue', { op: 'outcome', lead_id: [bLeads[0].id], status: 'wrong' }),
        await page(c, 'POST', 'queue', { op: 'next', account_id: { id: b.id } }),
        await page(c, 'GET', `kpi?account_id=${b.id}`),
        await page(c, 'GET', `kpi?account_id=${b.id}&by=agent&extra=1`),
        await page(c, 'POST', 'kpi', { account_id: b.id, by: 'city' }),
      ];
      for (const ans of answers) {
        expect(ans.status, ans.text).to.equal(200);
        for (const l of bLeads) expect(ans.text).to.not.include(l.reference);
        expect(ans.text).to.not.include(b.name);
        if (ans.body.lead) expect(ans.body.lead.account_id).to.equal(a.id);
        if (ans.body.report) expect(ans.body.report.account_id).to.equal(a.id);
      }
      // the account named is dropped: their own account's queue, as on the panel's forms (tenancy from the session)
      expect(answers[1].body).to.not.have.property('refusal');
      if (answers[1].body.lead) await page(c, 'POST', 'queue', { op: 'skip', lead_id: answers[1].body.lead.id });
      for (const ans of answers.slice(0, 3)) expect(ans.body).to.not.have.property('account_id');
      expect(answers[3].body.refusal).to.match(/does not exist or is not in your queue/);
      expect(answers[7].body).to.not.have.property('accounts');
      const after = (await ctx.models.Lead.findAll({ where: { account_id: b.id }, order: [['id', 'ASC']] })).map(
        (l) => `${l.id}:${l.status}`,
      );
      expect(after).to.deep.equal(before);
      expect(await claimsOf(ctx, b.id)).to.deep.equal([]);
    });
  }

  it('When an admin opens the pages, Then they pick among the accounts, and the KPI covers the one chosen', async () => {
    const admin = await makeAdmin(getCtx());
    const c = await login(web.url, admin.email, admin.password);
    const kpi = await page(c, 'GET', `kpi?account_id=${b.id}`);
    expect(kpi.body.report.account_id).to.equal(b.id);
    // "as of" and the presets' day in the chosen account's zone, written by the one formatter
    const zone = (await getCtx().models.Account.findByPk(b.id))!.time_zone;
    expect(kpi.body.report.time_zone).to.equal(zone);
    expect(kpi.body.as_of_text).to.equal(formatInZone(kpi.body.report.as_of, zone));
    expect(kpi.body.as_of_text).to.match(new RegExp(`\\(${zone}\\)$`));
    expect(kpi.body.today).to.equal(wallTime(new Date(), zone).slice(0, 10));
    expect(kpi.body.accounts.map((x: { id: number }) => x.id)).to.include.members([a.id, b.id]);
    const all = await page(c, 'GET', 'kpi');
    expect(all.body.report.account_id).to.equal(null);
    const counts = await page(c, 'GET', `queue?account_id=${b.id}`);
    expect(counts.body.counts.new).to.equal(2);
  });

  it('When a page gets a malformed or oversized JSON body, Then it answers 400 / 413 in words, not a 500 or a cut connection', async () => {
    const agent = await login(web.url, a.agent.email, a.agent.password);
    const claims = await claimsOf(getCtx(), a.id);
    const post = (body: string) =>
      agent.fetch('/admin/api/pages/queue', {
        method: 'POST',
        body,
        headers: { origin: web.url, 'content-type': 'application/json' },
      });
    const broken = await post('{"op":"next"');
    expect(broken.status).to.equal(400);
    expect((await broken.json()).message).to.equal('Malformed JSON body.');
    const huge = await post(JSON.stringify({ op: 'counts', pad: 'x'.repeat(2_000_000) }));
    expect(huge.status).to.equal(413);
    // a prototype-named key is refused by name (issue 29), and claims nothing
    const proto = await post('{"op":"counts","__proto__":{"op":"next"}}');
    expect(proto.status).to.equal(422);
    expect((await proto.json()).errors).to.have.property('__proto__');
    // a sound body still reaches the page, with its fields
    const fine = await post('{"op":"counts"}');
    expect(fine.status).to.equal(200);
    expect((await fine.json()).counts).to.have.property('new');
    expect(await claimsOf(getCtx(), a.id)).to.deep.equal(claims);
  });

  it('When the KPI period ends before it starts, Then the refusal names both dates in words', async () => {
    const seller = await login(web.url, a.seller.email, a.seller.password);
    const ans = await page(seller, 'GET', 'kpi?from=2026-03-10&to=2026-03-01');
    expect(ans.body.refusal).to.equal('To must be on or after From');
  });

  it('When a seller lists the histories, Then the account column names the account, not its number', async () => {
    const seller = await login(web.url, a.seller.email, a.seller.password);
    for (const resource of ['lead_histories', 'order_histories']) {
      const list = await seller.json('GET', `/admin/api/resources/${resource}/actions/list`);
      expect(list.body.records.length, resource).to.be.above(0);
      for (const r of list.body.records) expect(r.populated.account_id?.title, resource).to.equal(a.name);
    }
  });

  it('When a page is posted from another site or without a session, Then it is refused and no lead is claimed', async () => {
    const agent = await login(web.url, b.agent.email, b.agent.password);
    const crossSite = await page(agent, 'POST', 'queue', { op: 'next' }, 'http://evil.example');
    expect(crossSite.status).to.equal(403);
    const noOrigin = await agent.fetch('/admin/api/pages/queue', { method: 'POST', json: { op: 'next' } });
    expect(noOrigin.status).to.equal(403);
    const anonymous = await page(sessionClient(web.url), 'POST', 'queue', { op: 'next' });
    expect(anonymous.status).to.equal(401);
    expect(await claimsOf(getCtx(), b.id)).to.deep.equal([]);
    const unknown = await page(agent, 'GET', 'nope');
    expect(unknown.status).to.be.below(500);
    const proto = await page(agent, 'POST', '__proto__', { op: 'next' });
    expect(proto.status).to.be.below(500);
  });
});
