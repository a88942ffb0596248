import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login } from '../session.js';

/** The panel's JSON API (what AdminJS's pages call), driven with a seller's session. */
describe('admin panel scoping', function () {
  this.timeout(120_000);
  let web: Awaited<ReturnType<typeof startTestServer>>;
  before(async () => {
    web = await startTestServer();
  });
  after(async () => {
    await web.close();
  });

  it("keeps a seller's lists, counts and record pages inside the account, even with a tampered account filter", async () => {
    const ctx = getCtx();
    const a = await makeAccount(ctx);
    const b = await makeAccount(ctx);
    await ctx.services.leads.createMany(a.seller.actor, {
      leads: [
        {
          phone: '+212670000001',
          full_name: 'Own Lead',
          products: [{ sku: a.skus.active[0], quantity: 1, price: 10 }],
        },
      ],
    });
    const { references } = await ctx.services.leads.createMany(b.seller.actor, {
      leads: [
        {
          phone: '+212670000002',
          full_name: 'Foreign Lead',
          products: [{ sku: b.skus.active[0], quantity: 1, price: 10 }],
        },
      ],
    });
    const foreign = await ctx.models.Lead.findOne({ where: { reference: references[0] } });
    const c = await login(web.url, a.seller.email, a.seller.password);
    const tampered = await c.json(
      'GET',
      `/admin/api/resources/leads/actions/list?filters.account_id=${b.id}&perPage=100`,
    );
    expect(tampered.status).to.equal(200);
    expect(tampered.body.meta.total).to.equal(0);
    const list = await c.json('GET', '/admin/api/resources/leads/actions/list?perPage=100');
    expect(list.body.meta.total).to.equal(1);
    expect(list.body.records.map((r: { params: { full_name: string } }) => r.params.full_name)).to.deep.equal([
      'Own Lead',
    ]);
    const search = await c.json('GET', '/admin/api/resources/leads/search/Foreign');
    expect(search.status).to.equal(200);
    expect(search.body.records).to.deep.equal([]); // an answer, and an empty one (not an error page)
    const own = await c.json('GET', '/admin/api/resources/leads/search/Own');
    expect(own.body.records.map((r: { params: { full_name: string } }) => r.params.full_name)).to.deep.equal([
      'Own Lead',
    ]);
    const show = await c.json('GET', `/admin/api/resources/leads/records/${foreign!.id}/show`);
    expect(JSON.stringify(show.body)).to.not.include('Foreign Lead');
    const forged = await c.fetch('/admin/api/resources/leads/actions/new', {
      method: 'POST',
      json: { phone: '+212670000003', full_name: 'Forged', status: 'new' },
      headers: { origin: 'https://evil.example' },
    });
    expect(forged.status).to.equal(403);
    const sameSite = await c.fetch('/admin/api/resources/leads/actions/new', {
      method: 'POST',
      json: { phone: '+212670000004', full_name: 'Same Origin', status: 'new' },
      headers: { origin: web.url },
    });
    expect(sameSite.status).to.equal(200);
    expect(await ctx.models.Lead.count({ where: { account_id: a.id } })).to.equal(2);
    const unauth = await fetch(`${web.url}/admin/api/resources/leads/actions/list`, {
      headers: { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    });
    expect(unauth.status).to.equal(401);
  });
});
