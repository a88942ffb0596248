import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount, type TestUser } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login, panelApi, type SessionClient } from '../session.js';
import { blockPhone, leadOf, ordersWithOutcomes } from '../customer-fixtures.js';

type Row = { id: number; params: Record<string, string> };

const RISKY = '+212611000001'; // 2 returned: risky by returns (limit 2)
const BLOCKED = '+212611000002'; // on the blocklist, 1 delivered
const GOOD = '+212611000003'; // 3 of 3 delivered
const FRESH = '+212611000004'; // a lead, no order yet

/**
 * The Customers resource of the panel and the customer record on the lead's page and in the work queue, through
 * AdminJS's API as the browser calls it: scope, filters (risky by the code's rule, blocked, city), another account's
 * rows and ids, read-only.
 */
describe('admin panel: customers', function () {
  this.timeout(180_000);
  let web: Awaited<ReturnType<typeof startTestServer>>;
  let a: TestAccount;
  let b: TestAccount;
  let admin: TestUser;
  let seller: SessionClient;
  const leads: Record<string, { id: number; reference: string }> = {};

  const list = async (c: SessionClient, query = '') => {
    const res = await panelApi(c, web.url, 'GET', `customers/actions/list?perPage=100${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body as { records: Row[]; meta: { total: number } };
  };
  const phones = (rows: Row[]) => rows.map((r) => r.params.phone_normalized).sort();

  before(async () => {
    const ctx = getCtx();
    web = await startTestServer();
    [a, b, admin] = await Promise.all([makeAccount(ctx), makeAccount(ctx), makeAdmin(ctx)]);
    leads.risky = await leadOf(ctx, a, RISKY, 'Risky Rachid');
    await ordersWithOutcomes(ctx, a, RISKY, ['returned', 'returned']);
    leads.blocked = await leadOf(ctx, a, BLOCKED, 'Blocked Badr', 'Rabat');
    await ordersWithOutcomes(ctx, a, BLOCKED, ['delivered'], 'Rabat');
    await blockPhone(ctx, a.id, BLOCKED, 'Refused three parcels at the door');
    leads.good = await leadOf(ctx, a, GOOD, 'Good Ghita');
    await ordersWithOutcomes(ctx, a, GOOD, ['delivered', 'delivered', 'delivered']);
    leads.fresh = await leadOf(ctx, a, FRESH, 'Fresh Fatima');
    // account B: the risky phone is a good customer there, and blocked there too
    await leadOf(ctx, b, RISKY, 'Other Shop Buyer');
    await ordersWithOutcomes(ctx, b, RISKY, ['delivered']);
    await blockPhone(ctx, b.id, GOOD, 'B blocks this phone, not A');
    seller = await login(web.url, a.seller.email, a.seller.password);
  });
  after(async () => web?.close());

  it("When a seller lists customers, Then they read their account's customers only, last seen first, with their figures", async () => {
    const { records, meta } = await list(seller);
    expect(meta.total).to.equal(4);
    expect(records.map((r) => r.params.phone_normalized)).to.deep.equal([FRESH, GOOD, BLOCKED, RISKY]);
    const good = records.find((r) => r.params.phone_normalized === GOOD)!.params;
    expect(good).to.include({ orders: 3, delivered: 3, returned: 0, delivery_rate: '100', risky: 'false' } as never);
    expect(good.blocked).to.equal('false'); // B's block of the same phone is B's
    const risky = records.find((r) => r.params.phone_normalized === RISKY)!.params;
    expect(JSON.parse(risky.risk)).to.deep.equal({
      risky: true,
      findings: [{ kind: 'returns', returned: 2, limit: 2 }],
    });
    expect(risky.delivered).to.equal(0); // B's delivered order of the phone is not counted here
  });

  it('When a seller filters risky yes or no, Then the rows are those the Risk column marks', async () => {
    const yes = await list(seller, '&filters.risky=true');
    expect(phones(yes.records)).to.deep.equal([RISKY]);
    expect(yes.records.every((r) => r.params.risky === 'true')).to.equal(true);
    const no = await list(seller, '&filters.risky=false');
    expect(phones(no.records)).to.deep.equal([BLOCKED, GOOD, FRESH].sort());
    expect(no.records.every((r) => r.params.risky === 'false')).to.equal(true);
  });

  it('When a seller filters blocked yes or no, Then only the phones on their own blocklist are blocked', async () => {
    const yes = await list(seller, '&filters.blocked=true');
    expect(phones(yes.records)).to.deep.equal([BLOCKED]);
    expect(yes.records[0].params).to.include({ blocked: 'true', block_reason: 'Refused three parcels at the door' });
    const no = await list(seller, '&filters.blocked=false');
    expect(phones(no.records)).to.deep.equal([RISKY, GOOD, FRESH].sort());
  });

  it('When a seller filters by city, Then only the customers of that city are listed', async () => {
    const rabat = await list(seller, '&filters.city=rabat');
    expect(phones(rabat.records)).to.deep.equal([BLOCKED]);
  });

  it('When a filter value is not yes or no, Then it matches nothing rather than everything', async () => {
    expect((await list(seller, '&filters.risky=maybe')).meta.total).to.equal(0);
    expect((await list(seller, '&filters.blocked=1')).meta.total).to.equal(0);
  });

  it("When a seller tampers with the account filter or opens another account's customer, Then nothing of B shows", async () => {
    expect((await list(seller, `&filters.account_id=${b.id}`)).meta.total).to.equal(0);
    const foreign = await getCtx().models.Customer.findOne({ where: { account_id: b.id, phone_normalized: RISKY } });
    const show = await panelApi(seller, web.url, 'GET', `customers/records/${foreign!.id}/show`);
    expect(show.text).to.not.include('Other Shop');
    expect(show.body?.record?.params?.account_id).to.equal(undefined);
    const own = await getCtx().models.Customer.findOne({ where: { account_id: a.id, phone_normalized: RISKY } });
    const mine = await panelApi(seller, web.url, 'GET', `customers/records/${own!.id}/show`);
    expect(mine.body.record.params).to.include({ phone_normalized: RISKY, returned: 2, risky: 'true' });
  });

  it('When an agent lists customers, Then they read them too, and no action writes one', async () => {
    const agent = await login(web.url, a.agent.email, a.agent.password);
    expect((await list(agent)).meta.total).to.equal(4);
    for (const action of ['new', 'edit', 'delete'])
      for (const who of [agent, seller]) {
        const own = await getCtx().models.Customer.findOne({ where: { account_id: a.id } });
        const path = action === 'new' ? 'customers/actions/new' : `customers/records/${own!.id}/${action}`;
        const res = await panelApi(who, web.url, 'POST', path, {});
        // AdminJS answers a closed action with its refusal notice and no record
        expect(res.body?.notice?.type, `${action}: ${res.text}`).to.equal('error');
        expect(res.body?.record?.params ?? {}).to.deep.equal({});
      }
    expect(await getCtx().models.Customer.count({ where: { account_id: a.id } })).to.equal(4);
  });

  it('When an admin lists customers, Then both accounts show, and the same phone is two customers', async () => {
    const c = await login(web.url, admin.email, admin.password);
    const { records } = await list(c, `&filters.phone_normalized=${encodeURIComponent(RISKY)}`);
    const mine = records.filter((r) => [a.id, b.id].includes(Number(r.params.account_id)));
    expect(mine.map((r) => [Number(r.params.account_id), r.params.risky]).sort()).to.deep.equal(
      [
        [a.id, 'true'],
        [b.id, 'false'],
      ].sort(),
    );
  });

  it("When a seller opens a lead's page, Then it carries the customer record of its phone", async () => {
    const res = await panelApi(seller, web.url, 'GET', `leads/records/${leads.blocked.id}/show`);
    const { customer } = JSON.parse(res.body.record.params.customer_record);
    expect(customer).to.include({ phone: BLOCKED, blocked: true, block_reason: 'Refused three parcels at the door' });
    expect(customer.last_order.status).to.equal('delivered');
    expect(customer.times.last_order_at).to.match(/\(UTC|\(Africa\//);
  });

  it('When a lead has no E.164 phone, Then its page says it has no customer record', async () => {
    const { references } = await getCtx().services.leads.createMany(a.seller.actor, {
      leads: [
        {
          phone: '12345abcde',
          full_name: 'Typed Wrong',
          products: [{ sku: a.skus.active[0], quantity: 1, price: 100 }],
        },
      ],
    });
    const lead = await getCtx().models.Lead.findOne({ where: { reference: references[0] } });
    const res = await panelApi(seller, web.url, 'GET', `leads/records/${lead!.id}/show`);
    expect(JSON.parse(res.body.record.params.customer_record)).to.deep.equal({ customer: null });
  });

  it('When an agent takes a lead from the queue, Then the answer carries its customer record', async () => {
    const agent = await login(web.url, a.agent.email, a.agent.password);
    const res = await agent.fetch('/admin/api/pages/queue', {
      method: 'POST',
      headers: { origin: web.url, 'x-requested-with': 'XMLHttpRequest' },
      json: { op: 'next' },
    });
    const body = (await res.json()) as { lead: { phone: string; customer: Record<string, unknown> | null } };
    expect(body.lead.customer).to.not.equal(null);
    expect(body.lead.customer).to.include({ phone: body.lead.phone });
    await agent.fetch('/admin/api/pages/queue', {
      method: 'POST',
      headers: { origin: web.url, 'x-requested-with': 'XMLHttpRequest' },
      json: { op: 'skip', lead_id: (body.lead as unknown as { id: number }).id },
    });
  });
});
