import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, uid, type TestAccount, type TestUser } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { claimsOf, seedQueue } from '../queue-fixtures.js';
import { login, panelApi, type SessionClient } from '../session.js';
import { systemActor } from '../../src/actor.js';

type Json = Record<string, any>;

/** What an untouched AdminJS edit form posts back: the record's params as the edit action loaded them. */
const untouched = (params: Json): Json =>
  Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object'));

const rememberedOf = async (userId: number): Promise<number[]> =>
  (
    await getCtx().db.sequelize.query<{ worked_account_id: number }>(
      'SELECT worked_account_id FROM queue_accounts WHERE user_id = $1',
      { bind: [userId], type: QueryTypes.SELECT },
    )
  ).map((r) => r.worked_account_id);

/**
 * Issue 41, "no dead ends" for a new user: the admin's work queue opens on the last account they worked (or asks
 * which), a lead's free-text city is chosen on its edit form, and a webhook endpoint's Active box says what is stored.
 */
describe('admin panel without dead ends: the queue account, the City select, the Active box', function () {
  this.timeout(120_000);
  const web = useTestServer();
  let a: TestAccount;
  let b: TestAccount;
  let admin: TestUser;

  const queuePage = async (c: SessionClient, method: 'GET' | 'POST', json?: Json, query = '') => {
    const res = await c.fetch(`/admin/api/pages/queue${query}`, {
      method,
      headers: { origin: web.url, 'x-requested-with': 'XMLHttpRequest' },
      ...(json ? { json } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  before(async () => {
    const ctx = getCtx();
    a = await makeAccount(ctx);
    b = await makeAccount(ctx);
    admin = await makeAdmin(ctx);
    await seedQueue(ctx, a, [{ status: 'new' }]);
    await seedQueue(ctx, b, [{ status: 'new' }, { status: 'new' }]);
  });

  describe('the work queue', () => {
    it('When an admin first opens the queue, Then it asks which account (the accounts listed), works none and counts none', async () => {
      const c = await login(web.url, admin.email, admin.password);
      const first = await queuePage(c, 'GET');
      expect(first.status).to.equal(200);
      expect(first.body.account_id).to.equal(null);
      expect(first.body.accounts.map((x: Json) => x.id)).to.include.members([a.id, b.id]);
      expect(first.body).to.not.have.property('counts');
      const next = await queuePage(c, 'POST', { op: 'next' });
      expect(next.body).to.include({ account_id: null });
      expect(next.body).to.not.have.property('lead');
      expect(await claimsOf(getCtx(), admin.actor.accountId as number)).to.deep.equal([]);
      expect(await rememberedOf(admin.id)).to.deep.equal([]);
    });

    it('When an admin works account B, Then the queue opens on B the next time, after a new login too', async () => {
      const c = await login(web.url, admin.email, admin.password);
      const chosen = await queuePage(c, 'POST', { op: 'counts', account_id: String(b.id) });
      expect(chosen.body.account_id).to.equal(b.id);
      expect(chosen.body.counts.new).to.equal(2);
      const again = await login(web.url, admin.email, admin.password);
      const opened = await queuePage(again, 'GET');
      expect(opened.body.account_id).to.equal(b.id);
      expect(opened.body.counts.new).to.equal(2);
      expect(opened.body.time_zone).to.equal((await getCtx().models.Account.findByPk(b.id))!.time_zone);
      // an account that does not exist is refused and not kept
      const unknown = await queuePage(again, 'POST', { op: 'counts', account_id: 2_000_000_000 });
      expect(unknown.body.refusal).to.be.a('string');
      expect(await rememberedOf(admin.id)).to.deep.equal([b.id]);
      // then A: the next lead is A's, and A is kept
      const held = await queuePage(again, 'POST', { op: 'next', account_id: a.id });
      expect(held.body.lead.account_id).to.equal(a.id);
      await queuePage(again, 'POST', { op: 'skip', lead_id: held.body.lead.id, account_id: a.id });
      expect(await rememberedOf(admin.id)).to.deep.equal([a.id]);
      expect((await queuePage(again, 'GET')).body.account_id).to.equal(a.id);
    });

    it('When the account an admin worked is deleted, Then the queue asks again', async () => {
      const ctx = getCtx();
      const gone = await ctx.services.accounts.createAccount(systemActor(), { name: `Gone ${uid()}` });
      const other = await makeAdmin(ctx);
      const c = await login(web.url, other.email, other.password);
      await queuePage(c, 'POST', { op: 'counts', account_id: gone.id });
      expect(await rememberedOf(other.id)).to.deep.equal([gone.id]);
      await ctx.models.Account.destroy({ where: { id: gone.id } });
      expect((await queuePage(c, 'GET')).body.account_id).to.equal(null);
    });

    for (const role of ['seller', 'agent'] as const) {
      it(`When a ${role} names another account, Then they get their own account's queue and nothing is kept`, async () => {
        const c = await login(web.url, b[role].email, b[role].password);
        const own = await queuePage(c, 'GET');
        for (const ans of [
          await queuePage(c, 'GET', undefined, `?account_id=${a.id}`),
          await queuePage(c, 'POST', { op: 'counts', account_id: a.id }),
          await queuePage(c, 'POST', { op: 'counts', account_id: String(a.id) }),
        ]) {
          expect(ans.status).to.equal(200);
          expect(ans.body).to.not.have.property('refusal');
          expect(ans.body).to.not.have.property('accounts');
          expect(ans.body).to.not.have.property('account_id');
          expect(ans.body.counts).to.deep.equal(own.body.counts);
        }
        const next = await queuePage(c, 'POST', { op: 'next', account_id: a.id });
        expect(next.body.lead.account_id).to.equal(b.id);
        await queuePage(c, 'POST', { op: 'skip', lead_id: next.body.lead.id });
        expect(await rememberedOf(b[role].id)).to.deep.equal([]);
        const theirs = (await claimsOf(getCtx(), a.id)).filter((cl) => cl.user_id === b[role].id);
        expect(theirs).to.deep.equal([]);
      });
    }
  });

  describe('the edit forms', () => {
    const line = () => [{ sku: a.skus.active[0], quantity: 1, price: 100 }];
    it('When a lead came in with a free-text city of the list, Then its edit form has that city chosen, and saving untouched keeps it', async () => {
      const ctx = getCtx();
      const name = `Kenitra ${uid()}`;
      const city = await ctx.services.catalogue.createCity(systemActor(), name);
      const { references } = await ctx.services.leads.createMany(a.seller.actor, {
        leads: [
          { phone: '+212611220041', full_name: 'Free Text City', city: ` ${name.toUpperCase()} `, products: line() },
        ],
      });
      const lead = (await ctx.models.Lead.findOne({ where: { account_id: a.id, reference: references[0] } }))!;
      expect(lead.city_id).to.equal(null);
      const seller = await login(web.url, a.seller.email, a.seller.password);
      const form = await panelApi(seller, web.url, 'GET', `leads/records/${lead.id}/edit`);
      expect(Number(form.body.record.params.city_id)).to.equal(city.id);
      expect(form.body.record.populated.city_id.title).to.equal(name);
      const saved = await panelApi(seller, web.url, 'POST', `leads/records/${lead.id}/edit`, {
        ...untouched(form.body.record.params),
      });
      expect(saved.body.record.errors ?? {}, saved.text.slice(0, 300)).to.deep.equal({});
      await lead.reload();
      expect([lead.city_id, lead.city]).to.deep.equal([city.id, name]);
      // and then, read again, it is the same city
      const again = await panelApi(seller, web.url, 'GET', `leads/records/${lead.id}/edit`);
      expect(Number(again.body.record.params.city_id)).to.equal(city.id);
    });

    it('When a free-text city is not in the list, Then the form chooses none and saving untouched keeps the text', async () => {
      const ctx = getCtx();
      const { references } = await ctx.services.leads.createMany(a.seller.actor, {
        leads: [{ phone: '+212611220042', full_name: 'Unknown City', city: `Douar ${uid()}`, products: line() }],
      });
      const lead = (await ctx.models.Lead.findOne({ where: { account_id: a.id, reference: references[0] } }))!;
      const seller = await login(web.url, a.seller.email, a.seller.password);
      const form = await panelApi(seller, web.url, 'GET', `leads/records/${lead.id}/edit`);
      expect(form.body.record.params.city_id ?? null).to.equal(null);
      await panelApi(seller, web.url, 'POST', `leads/records/${lead.id}/edit`, untouched(form.body.record.params));
      const city = lead.city;
      await lead.reload();
      expect([lead.city_id, lead.city]).to.deep.equal([null, city]);
    });

    it('When a webhook endpoint is edited, Then Active is the stored value, kept by an untouched save', async () => {
      const ctx = getCtx();
      const seller = await login(web.url, a.seller.email, a.seller.password);
      for (const active of [true, false]) {
        const { endpoint } = await ctx.services.webhooks.create(a.seller.actor, {
          url: `http://127.0.0.1:9/${uid()}`,
          events: ['lead.created'],
          active,
        });
        const form = await panelApi(seller, web.url, 'GET', `webhook_endpoints/records/${endpoint.id}/edit`);
        expect(form.body.record.params.active).to.equal(active);
        const saved = await panelApi(seller, web.url, 'POST', `webhook_endpoints/records/${endpoint.id}/edit`, {
          ...untouched(form.body.record.params),
          active: String(active),
        });
        expect(saved.body.record.errors ?? {}).to.deep.equal({});
        expect((await ctx.models.WebhookEndpoint.findByPk(endpoint.id))!.get('active')).to.equal(active);
      }
    });
  });
});
