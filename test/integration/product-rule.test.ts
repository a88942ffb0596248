import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import { createOrdersFromLeads } from '../../src/orders/from-leads.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeCarrier, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';

/** A lead's product lines as [sku, quantity, price] and its total. */
async function linesOf(id: number) {
  const lead = await getCtx().services.leads.show(systemActor(), { id });
  return { lines: lead.products.map((p) => [p.sku, p.quantity, Number(p.price)]), total: lead.total };
}

const phoneOf = (acc: TestAccount, i: number) =>
  `+2126${String(acc.id % 100).padStart(2, '0')}${String(i).padStart(6, '0')}`;

async function restLead(acc: TestAccount, i: number) {
  const { references } = await getCtx().services.leads.createMany(acc.seller.actor, {
    leads: [
      {
        phone: phoneOf(acc, i),
        full_name: 'With Product',
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
      },
    ],
  });
  return (await getCtx().models.Lead.findOne({ where: { reference: references[0] } }))!;
}

/** A lead without products, created through the dashboard service (status new). */
async function emptyLead(acc: TestAccount, i: number) {
  const lead = await getCtx().services.leads.createOne(acc.seller.actor, { name: phoneOf(acc, i), status: 'new' });
  return lead;
}

describe('one product rule', () => {
  const web = useTestServer();

  it('applies the same defaults (quantity 1, the catalogue price) in the dashboard, the panel and the import; REST keeps both required', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b] = acc.skus.active; // catalogue prices 100 and 200
    const seller = await login(web.url, acc.seller.email, acc.seller.password);

    const dash = await seller.json('POST', '/leads/store', {
      name: phoneOf(acc, 1),
      status: 'new',
      products: [{ sku: a }, { sku: b, quantity: 3, price: 50 }],
    });
    expect(dash.status, JSON.stringify(dash.body)).to.equal(201);
    expect(await linesOf(dash.body.data.id)).to.deep.equal({
      lines: [
        [a, 1, 100],
        [b, 3, 50],
      ],
      total: 250,
    });

    const edited = await seller.json('PATCH', `/leads/${dash.body.data.id}/update`, {
      status: 'new',
      full_name: 'Edited Lines',
      phone: phoneOf(acc, 1),
      products: [{ sku: b, quantity: 2 }],
    });
    expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
    expect(await linesOf(dash.body.data.id)).to.deep.equal({ lines: [[b, 2, 200]], total: 400 });

    const bad = await seller.json('POST', '/leads/store', {
      name: phoneOf(acc, 2),
      status: 'new',
      products: [{ sku: a }, { sku: a, quantity: 1000 }, { sku: a, price: 0.5 }],
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.errors).to.have.keys('products.1.quantity', 'products.2.price');
    const inactive = await seller.json('POST', '/leads/store', {
      name: phoneOf(acc, 2),
      status: 'new',
      products: [{ sku: acc.skus.inactive }],
    });
    expect(inactive.status).to.equal(422);
    expect(inactive.body.errors).to.have.keys('products.0.sku');

    const panel = await seller.fetch('/admin/api/resources/leads/actions/new', {
      method: 'POST',
      headers: { origin: web.url },
      json: {
        phone: phoneOf(acc, 3),
        full_name: 'Panel Lines',
        status: 'new',
        'products.0.sku': a,
        'products.0.quantity': '',
        'products.0.price': '',
        'products.1.sku': b,
        'products.1.quantity': '2',
        'products.1.price': '150.5',
      },
    });
    const created = await panel.json();
    expect(panel.status, JSON.stringify(created)).to.equal(200);
    expect(await linesOf(Number(created.record.params.id))).to.deep.equal({
      lines: [
        [a, 1, 100],
        [b, 2, 150.5],
      ],
      total: 401,
    });

    const file = path.join(os.tmpdir(), `${Date.now()}-defaults.csv`);
    await fs.promises.writeFile(
      file,
      `phone,sku,quantity,price\n${phoneOf(acc, 4)},${b},,\n${phoneOf(acc, 5)},${a},4,\n`,
    );
    const run = await ctx.services.imports.start(acc.seller.actor, {
      path: file,
      originalname: 'defaults.csv',
      size: (await fs.promises.stat(file)).size,
    });
    await ctx.services.imports.run(run.id);
    const imported = await ctx.models.Lead.findAll({
      where: { account_id: acc.id, import_run_id: run.id },
      order: [['phone', 'ASC']],
    });
    expect(await Promise.all(imported.map((l) => linesOf(l.id)))).to.deep.equal([
      { lines: [[b, 1, 200]], total: 200 },
      { lines: [[a, 4, 100]], total: 400 },
    ]);

    const rest = restClient(web.url, await acc.token());
    const noPrice = await rest('POST', '/leads', {
      leads: [{ phone: phoneOf(acc, 6), full_name: 'Rest Lead', products: [{ sku: a, quantity: 1 }] }],
    });
    expect(noPrice.status, 'the spec requires price in REST').to.equal(422);
    expect(noPrice.body.errors).to.have.keys('leads.0.products.0.price');
  });

  it("gives the panel's products editor the account's active products and, for a lead, its lines", async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    const lead = await restLead(acc, 30);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const fresh = await seller.json('GET', '/admin/api/resources/leads/actions/productChoices');
    expect(fresh.status, JSON.stringify(fresh.body)).to.equal(200);
    expect(fresh.body.products).to.deep.equal(
      acc.skus.active.map((sku, i) => ({ sku, name: `Product ${sku}`, price: (i + 1) * 100 })),
    );
    expect(fresh.body.lines).to.deep.equal([]);
    const own = await seller.json('GET', `/admin/api/resources/leads/actions/productChoices?id=${lead.id}`);
    expect(own.body.lines).to.deep.equal([
      { sku: acc.skus.active[0], name: `Product ${acc.skus.active[0]}`, quantity: 1, price: 10 },
    ]);
    const foreign = await restLead(other, 31);
    const refused = await seller.json('GET', `/admin/api/resources/leads/actions/productChoices?id=${foreign.id}`);
    expect(refused.body.notice.message, "another account's lead").to.equal('Not found.');
    expect(refused.body).to.not.have.any.keys('products', 'lines');
  });

  it("edits a lead's lines in the panel: the editor's rows replace them, an emptied editor removes them", async () => {
    const acc = await makeAccount(getCtx());
    const lead = await restLead(acc, 40);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const edit = (form: Record<string, string>) =>
      seller.fetch(`/admin/api/resources/leads/records/${lead.id}/edit`, {
        method: 'POST',
        headers: { origin: web.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ status: 'new', full_name: 'Panel Edit', phone: lead.phone, ...form }).toString(),
      });
    expect((await edit({ 'products.0.sku': acc.skus.active[1], 'products.0.quantity': '2' })).status).to.equal(200);
    expect(await linesOf(lead.id)).to.deep.equal({ lines: [[acc.skus.active[1], 2, 200]], total: 400 });
    expect((await edit({})).status).to.equal(200);
    expect((await linesOf(lead.id)).total, 'no products field: the lines stay').to.equal(400);
    // what AdminJS posts for an editor whose rows were all removed
    expect((await edit({ products: '__FORM_VALUE_EMPTY_ARRAY__' })).status).to.equal(200);
    expect(await linesOf(lead.id)).to.deep.equal({ lines: [], total: 0 });
  });

  it('refuses to confirm a lead without products in REST (the whole batch), the dashboard, the panel and the work queue', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const full = await restLead(acc, 10);
    const empty = await emptyLead(acc, 11);
    const rest = restClient(web.url, await acc.token());
    const batch = await rest('PUT', '/leads', {
      leads: [
        { reference: full.reference, status: 'confirmed' },
        { reference: empty.reference, status: 'confirmed' },
      ],
    });
    expect(batch.status).to.equal(422);
    expect(batch.body.errors['leads.1.status'][0]).to.equal(
      `A lead without products cannot be confirmed: add a product to ${empty.reference} first.`,
    );
    expect((await full.reload()).status, 'nothing of the batch was written').to.equal('new');
    expect(await ctx.models.Order.count({ where: { account_id: acc.id } })).to.equal(0);

    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const store = await seller.json('POST', '/leads/store', { name: phoneOf(acc, 12), status: 'confirmed' });
    expect(store.status).to.equal(422);
    expect(store.body.errors.status[0]).to.match(/A lead without products cannot be confirmed/);
    const patch = await seller.json('PATCH', `/leads/${empty.id}/update`, {
      status: 'confirmed',
      full_name: 'No Lines',
      phone: empty.phone,
    });
    expect(patch.status).to.equal(422);
    expect(patch.body.errors.status[0]).to.include(empty.reference);

    const panel = await seller.fetch(`/admin/api/resources/leads/records/${empty.id}/edit`, {
      method: 'POST',
      headers: { origin: web.url },
      json: { status: 'confirmed', full_name: 'No Lines', phone: empty.phone },
    });
    const body = await panel.json();
    expect(body.record.errors.status.message).to.include(empty.reference);
    expect((await ctx.models.Lead.findByPk(empty.id))!.status).to.equal('new');

    // an uncallable phone asked as confirmed is created `wrong`: nothing to confirm, nothing refused
    const wrong = await seller.json('POST', '/leads/store', { name: 'not a phone', status: 'confirmed' });
    expect(wrong.status).to.equal(201);
    expect(wrong.body.data.status).to.equal('wrong');

    // the work queue: an agent's "confirmed" outcome on the lead without products
    await ctx.models.Lead.destroy({ where: { account_id: acc.id, id: [full.id, wrong.body.data.id] } });
    const item = await ctx.services.queue.next(acc.agent.actor);
    expect(item?.id).to.equal(empty.id);
    const refused = await ctx.services.queue.outcome(acc.agent.actor, empty.id, { status: 'confirmed' }).then(
      () => null,
      (e: Error) => e,
    );
    expect(refused?.message).to.include(empty.reference);

    // with a product added, it confirms
    const fixed = await seller.json('PATCH', `/leads/${empty.id}/update`, {
      status: 'confirmed',
      full_name: 'Has Lines',
      phone: empty.phone,
      products: [{ sku: acc.skus.active[2] }],
    });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    expect(fixed.body.data).to.include({ status: 'confirmed', total: 300 });
  });

  it('never pushes an order of total 0: the push request is refused, and a job that meets one marks it failed unsent', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await makeCarrier(ctx, acc.id);
    const empty = await emptyLead(acc, 20);
    // an order of total 0, as confirmations made before the rule left them
    const [order] = await ctx.db.sequelize.transaction((t) =>
      createOrdersFromLeads(ctx, t, acc.seller.actor, [empty.id]),
    );
    const rest = restClient(web.url, await acc.token());
    const res = await rest('POST', '/orders/push', { references: [order.reference], shipping_company: 'fast' });
    expect(res.status).to.equal(422);
    expect(res.body.errors['references.0'][0]).to.equal(
      `Order ${order.reference} has a total of 0: an order with nothing to collect cannot be pushed.`,
    );
    const o = (await ctx.models.Order.findOne({ where: { reference: order.reference } }))!;
    expect(o.push_state).to.equal(null);

    const carrier = await ctx.models.ShippingCompany.findOne({ where: { account_id: acc.id } });
    await o.update({ push_state: 'queued', shipping_company_id: carrier!.id });
    expect(await ctx.services.orders.pushOne(o.id, 'test', null)).to.equal('refused');
    await o.reload();
    expect(o.toJSON()).to.include({ push_state: 'failed', status: 'new', push_attempts: 0 });
    expect(o.last_push_error).to.match(/total of 0/);
  });
});
