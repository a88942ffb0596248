import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { systemActor, type Actor } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login, panelApi } from '../session.js';
import { confirm, fromOrders, levels, move, newLead, orderOf, phone, type Level } from '../stock-fixtures.js';

/** Stock (issue 43, docs/stock.md): the ledger, the levels, the orders moving them, the policy, the REST routes. */

describe('stock', function () {
  this.timeout(60_000);
  const web = useTestServer();

  it('When receipts, confirmations, orders, cancellations, shipments, returns, deletes and adjustments run, Then the levels equal the ledger and the orders', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b] = acc.skus.active;
    const stock = ctx.services.stock;
    await stock.record(acc.seller.actor, {
      movements: [
        { sku: a, kind: 'receipt', quantity: 20, reason: 'Supplier 1' },
        { sku: b, kind: 'receipt', quantity: 5 },
      ],
    });
    const l1 = await newLead(acc, [
      [a, 2],
      [b, 1],
    ]);
    const l2 = await newLead(acc, [[a, 3]]);
    const l3 = await newLead(acc, [
      [a, 1],
      [b, 2],
    ]);
    const l4 = await newLead(acc, [[b, 1]]);
    for (const l of [l1, l2, l3, l4]) await confirm(acc.seller.actor, l);
    const [o1, o2, o3, o4] = await Promise.all([l1, l2, l3, l4].map(orderOf));
    await ctx.services.orders.createMany(acc.seller.actor, {
      orders: [{ phone: phone(), full_name: 'Direct', products: [{ sku: a, quantity: 4, price: 100 }] }],
    });
    await move(acc, o1, 'pushed');
    await move(acc, o1, 'shipped');
    await move(acc, o1, 'delivered');
    await move(acc, o2, 'pushed');
    await move(acc, o2, 'shipped');
    await move(acc, o2, 'returned');
    await move(acc, o3, 'canceled');
    await ctx.services.orders.deleteMany(acc.seller.actor, { references: [o4] });
    await stock.record(acc.seller.actor, {
      movements: [{ sku: a, kind: 'adjustment', quantity: -1, reason: 'Broken' }],
    });
    await stock.follow(); // the shipments and the return, as the worker moves them

    const got = await levels(acc.id);
    const expected = await fromOrders(acc.id);
    // a: 20 − 1 broken − 2 delivered (o2 came back) = 17 on hand; 4 reserved by the direct order
    expect(got.find((l) => l.sku === a)).to.deep.include({
      warehouse: 'MAIN',
      on_hand: 17,
      reserved: 4,
      available: 13,
    });
    expect(got.find((l) => l.sku === b)).to.deep.include({ on_hand: 4, reserved: 0, available: 4 });
    for (const l of got) expect({ on_hand: l.on_hand, reserved: l.reserved }, l.sku).to.deep.equal(expected[l.sku]);
    const check = await stock.check(systemActor());
    expect(check.drifts.filter((d) => d.account_id === acc.id)).to.deep.equal([]);
    const kinds = (await stock.movements(acc.seller.actor, { per_page: 100 })).data.map((m) => m.kind);
    expect(new Set(kinds)).to.deep.equal(
      new Set(['receipt', 'reservation', 'shipment', 'return', 'release', 'adjustment']),
    );
  });

  it('When an enforcing account confirms more than is available, Then 422 names the sku, the warehouse and what is available, and nothing changes', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.accounts.updateAccount(systemActor(), acc.id, { stock_policy: 'enforce' });
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 2 }] });
    const lead = await newLead(acc, [[a, 3]]);
    const api = restClient(web.url, await acc.token(['UPDATE LEADS', 'VIEW LEADS']));

    const res = await api('PUT', '/leads', { leads: [{ reference: lead, status: 'confirmed' }] });

    expect(res.status).to.equal(422);
    expect(res.body.errors.stock).to.deep.equal([`Not enough stock of ${a} in MAIN: 2 available, 3 needed.`]);
    const [row] = await ctx.db.sequelize.query<{ status: string; orders: number }>(
      `SELECT status, (SELECT count(*)::int FROM orders WHERE lead_reference = $1) AS orders FROM leads
        WHERE reference = $1`,
      { bind: [lead], type: QueryTypes.SELECT },
    );
    expect(row).to.deep.equal({ status: 'new', orders: 0 });
    expect((await levels(acc.id)).find((l) => l.sku === a)).to.deep.include({ on_hand: 2, reserved: 0 });

    const direct = await restClient(web.url, await acc.token(['CREATE ORDERS']))('POST', '/orders', {
      orders: [{ phone: phone(), full_name: 'Direct', products: [{ sku: a, quantity: 3, price: 100 }] }],
    });
    expect(direct.status).to.equal(422);
    expect(direct.body.errors.stock[0]).to.include(a).and.include('2 available');
  });

  it('When an enforcing account confirms short of stock through the dashboard, the panel or the queue, Then each refuses it in the same words and nothing changes', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.accounts.updateAccount(systemActor(), acc.id, { stock_policy: 'enforce' });
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 1 }] });
    const short = `Not enough stock of ${a} in MAIN: 1 available, 2 needed.`;
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const idOf = async (reference: string) => (await ctx.models.Lead.findOne({ where: { reference } }))!.id;

    // the dashboard's lead update (session, JSON)
    const viaDashboard = await newLead(acc, [[a, 2]]);
    const dashboard = await seller.fetch(`/leads/${await idOf(viaDashboard)}/update`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'confirmed', full_name: 'Stock Buyer', phone: '+212611000111' }),
    });
    expect(dashboard.status).to.equal(422);
    const said = await dashboard.json();
    expect(said.errors.stock).to.deep.equal([short]);

    // the panel's lead edit form: the refusal is said on the form, the lead stays
    const viaPanel = await newLead(acc, [[a, 2]]);
    const id = await idOf(viaPanel);
    const form = await panelApi(seller, web.url, 'GET', `leads/records/${id}/edit`);
    const params = { ...(form.body.record.params as Record<string, unknown>), status: 'confirmed' };
    const body = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, v === null ? '__FORM_VALUE_NULL__' : v]),
    );
    const panel = await panelApi(seller, web.url, 'POST', `leads/records/${id}/edit`, body);
    expect(panel.body.notice?.type, panel.text).to.equal('error');
    expect(panel.text).to.include(short);

    // the work queue's outcome, by the agent who holds the lead
    const viaQueue = await newLead(acc, [[a, 2]]);
    let held: string | undefined;
    for (let i = 0; i < 3 && held !== viaQueue; i++) held = (await ctx.services.queue.next(acc.agent.actor))?.reference;
    expect(held).to.equal(viaQueue);
    const queue = await ctx.services.queue
      .outcome(acc.agent.actor, { reference: viaQueue }, { status: 'confirmed' })
      .then(
        () => null,
        (err: { name?: string; errors?: Record<string, string[]> }) => err,
      );
    expect(queue?.name).to.equal('ValidationError');
    expect(queue?.errors?.stock).to.deep.equal([short]);

    const [row] = await ctx.db.sequelize.query<{ confirmed: number; orders: number }>(
      `SELECT count(*) FILTER (WHERE status = 'confirmed')::int AS confirmed,
              (SELECT count(*)::int FROM orders WHERE account_id = $1) AS orders FROM leads WHERE account_id = $1`,
      { bind: [acc.id], type: QueryTypes.SELECT },
    );
    expect(row).to.deep.equal({ confirmed: 0, orders: 0 });
    expect((await levels(acc.id)).find((l) => l.sku === a)).to.deep.include({ on_hand: 1, reserved: 0 });
  });

  it('When a seller ships a new order from another warehouse in the panel, Then what it holds moves there, refused in words when an enforcing account is short', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    const stock = ctx.services.stock;
    await stock.createWarehouse(acc.seller.actor, { code: 'FES', name: 'Fès' });
    await stock.record(acc.seller.actor, {
      movements: [
        { sku: a, kind: 'receipt', quantity: 5 },
        { sku: a, kind: 'receipt', quantity: 3, warehouse: 'FES' },
      ],
    });
    const first = await newLead(acc, [[a, 2]]);
    await confirm(acc.seller.actor, first);
    const order = (await ctx.models.Order.findOne({ where: { lead_reference: first } }))!;
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const action = `orders/records/${order.id}/orderWarehouse`;

    const offered = await panelApi(seller, web.url, 'GET', `orders/records/${order.id}/warehouseChoices`);
    expect(offered.body.current).to.equal('MAIN');
    expect(offered.body.warehouses.map((w: { code: string }) => w.code)).to.have.members(['FES', 'MAIN']);
    const moved = await panelApi(seller, web.url, 'POST', action, { warehouse: 'FES' });
    expect(moved.body.notice, moved.text).to.include({ type: 'success' });
    const at = async () =>
      Object.fromEntries(
        (await levels(acc.id)).filter((l) => l.sku === a).map((l) => [l.warehouse, [l.on_hand, l.reserved]]),
      );
    expect(await at()).to.deep.equal({ MAIN: [5, 0], FES: [3, 2] });
    const ledger = await stock.movements(acc.seller.actor, { order_reference: order.reference });
    expect(ledger.data.map((m) => [m.kind, m.warehouse, m.quantity])).to.deep.equal([
      ['reservation', 'FES', 2],
      ['release', 'MAIN', -2],
      ['reservation', 'MAIN', 2],
    ]);

    // enforce: FES has 1 available; a second order of 2 may not go there
    await ctx.services.accounts.updateAccount(systemActor(), acc.id, { stock_policy: 'enforce' });
    const second = await newLead(acc, [[a, 2]]);
    await confirm(acc.seller.actor, second);
    const other = (await ctx.models.Order.findOne({ where: { lead_reference: second } }))!;
    const short = await panelApi(seller, web.url, 'POST', `orders/records/${other.id}/orderWarehouse`, {
      warehouse: 'FES',
    });
    expect(short.body.notice?.type, short.text).to.equal('error');
    expect(short.text).to.include(`Not enough stock of ${a} in FES: 1 available, 2 needed.`);
    expect(await at()).to.deep.equal({ MAIN: [5, 2], FES: [3, 2] });

    // a pushed order, another account's order, an agent, an unknown code: refused, nothing moves
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (err: Error) => err.name,
      );
    const moveTo = (actor: Actor, id: number, warehouse: unknown) =>
      refusal(stock.moveOrderTo(actor, id, { warehouse }));
    await ctx.db.sequelize.query("UPDATE orders SET status = 'pushed' WHERE id = $1", { bind: [order.id] });
    expect(await moveTo(acc.seller.actor, order.id, 'MAIN')).to.equal('ValidationError');
    const stranger = await makeAccount(ctx);
    expect(await moveTo(stranger.seller.actor, other.id, 'MAIN')).to.equal('NotFoundError');
    expect(await moveTo(acc.agent.actor, other.id, 'MAIN')).to.equal('ForbiddenError');
    expect(await moveTo(acc.seller.actor, other.id, 'NOWHERE')).to.equal('ValidationError');
    expect(await moveTo(acc.seller.actor, other.id, ['FES'])).to.equal('ValidationError');
    // an order whose push is queued is the carrier's already, though it still says new
    await ctx.db.sequelize.query("UPDATE orders SET push_state = 'queued' WHERE id = $1", { bind: [other.id] });
    expect(await moveTo(acc.seller.actor, other.id, 'FES')).to.equal('ValidationError');
    expect(await at()).to.deep.equal({ MAIN: [5, 2], FES: [3, 2] });
  });

  it('When two agents confirm the last unit at the same moment, Then exactly one succeeds', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.accounts.updateAccount(systemActor(), acc.id, { stock_policy: 'enforce' });
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 1 }] });
    const first = await newLead(acc, [[a, 1]]);
    const second = await newLead(acc, [[a, 1]]);

    const outcomes = await Promise.allSettled([confirm(acc.agent.actor, first), confirm(acc.seller.actor, second)]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.errors.stock[0]).to.include('0 available');
    expect((await levels(acc.id)).find((l) => l.sku === a)).to.deep.include({ on_hand: 1, reserved: 1, available: 0 });
  });

  it('When a lead and then its order are shown, Then each product line carries what is available in its warehouse', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 5 }] });
    const lead = await newLead(acc, [
      [a, 2],
      [b, 1],
    ]);
    const api = restClient(web.url, await acc.token(['VIEW LEADS', 'VIEW ORDERS']));
    const lines = (body: { data: { products: { sku: string; available: number | null }[] } }) =>
      body.data.products.map((p) => [p.sku, p.available]);

    expect(lines((await api('GET', `/leads/${lead}/show`)).body)).to.deep.equal([
      [a, 5],
      [b, 0],
    ]);
    await confirm(acc.seller.actor, lead);
    // track: the order reserved 2 of a and 1 of b, which had none on the shelf
    expect(lines((await api('GET', `/orders/${await orderOf(lead)}/show`)).body)).to.deep.equal([
      [a, 3],
      [b, -1],
    ]);
  });

  it('When a token of MANAGE STOCK records, lists and sets thresholds, Then the routes answer their documented shapes', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b] = acc.skus.active;
    const api = restClient(web.url, await acc.token(['MANAGE STOCK'], 'wms'));

    const made = await api('POST', '/warehouses', { code: 'casa2', name: 'Casablanca depot' });
    expect(made.status).to.equal(201);
    expect(made.body.data).to.include({ code: 'CASA2', is_default: false, account_id: acc.id });
    const recorded = await api('POST', '/stock/movements', {
      movements: [
        { sku: a, warehouse: 'CASA2', kind: 'receipt', quantity: 7 },
        { sku: b, kind: 'receipt', quantity: 1 },
      ],
    });
    expect(recorded.status, JSON.stringify(recorded.body)).to.equal(201);
    expect(recorded.body).to.deep.equal({ message: '2 stock movement(s) recorded.', movements: 2 });
    const threshold = await api('PUT', `/products/${b}`, { low_stock_threshold: 3 });
    expect(threshold.status).to.equal(200);
    expect(threshold.body.data).to.include({ sku: b, low_stock_threshold: 3, available: 1, low: true });

    const low = await api('GET', '/stock?low=true&warehouse=MAIN');
    expect(low.status).to.equal(200);
    expect(low.body.data.map((l: Level) => l.sku))
      .to.include(b)
      .and.include(a);
    const casa = await api('GET', `/stock?warehouse=CASA2&sku=${a}`);
    expect(casa.body.data).to.have.length(1);
    expect(casa.body.data[0]).to.include({ on_hand: 7, available: 7, low: false });
    const ledger = await api('GET', `/stock/movements?sku=${a}&kind=receipt`);
    expect(ledger.body.data).to.have.length(1);
    expect(ledger.body.data[0]).to.include({ warehouse: 'CASA2', quantity: 7, changed_by: `wms (${acc.seller.name})` });
    const warehouses = await api('GET', '/warehouses');
    expect(warehouses.body.data.map((w: { code: string }) => w.code)).to.deep.equal(['MAIN', 'CASA2']);
    const products = await api('GET', `/products?sku=${a}`);
    expect(products.body.data[0]).to.include({ sku: a, on_hand: 7 });
    expect((await api('GET', '/stock', undefined)).status).to.equal(200);
    const otherScope = restClient(web.url, await acc.token(['VIEW LEADS']));
    expect((await otherScope('GET', '/stock')).status).to.equal(403);
  });

  it('When a request names another account\u2019s sku, warehouse or account, or bad values, Then 4xx and nothing is recorded', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    await ctx.services.stock.createWarehouse(other.seller.actor, { code: 'THEIRS', name: 'Theirs' });
    const api = restClient(web.url, await acc.token(['MANAGE STOCK']));
    const [a] = acc.skus.active;
    const foreignSku = `${other.skus.active[0]}-${other.id}`;
    await ctx.db.sequelize.query('UPDATE products SET sku = $2 WHERE account_id = $1 AND sku = $3', {
      bind: [other.id, foreignSku, other.skus.active[0]],
    });
    const cases: [string, string, unknown, number][] = [
      ['POST', '/stock/movements', { movements: [{ sku: foreignSku, kind: 'receipt', quantity: 1 }] }, 422],
      ['POST', '/stock/movements', { movements: [{ sku: a, warehouse: 'THEIRS', kind: 'receipt', quantity: 1 }] }, 422],
      [
        'POST',
        '/stock/movements',
        { movements: [{ sku: a, kind: 'receipt', quantity: 1 }], account_id: other.id },
        422,
      ],
      ['POST', '/stock/movements', { movements: [{ sku: a, kind: 'reservation', quantity: 1 }] }, 422],
      ['POST', '/stock/movements', { movements: [{ sku: a, kind: 'receipt', quantity: 0 }] }, 422],
      ['POST', '/stock/movements', { movements: [{ sku: a, kind: 'receipt', quantity: 1e12 }] }, 422],
      ['POST', '/stock/movements', { movements: [{ sku: `${a}\u0000`, kind: 'receipt', quantity: 1 }] }, 422],
      ['POST', '/stock/movements', { movements: [{ sku: a, kind: 'adjustment', quantity: -1 }] }, 422],
      ['POST', '/stock/movements', { movements: Array(1001).fill({ sku: a, kind: 'receipt', quantity: 1 }) }, 422],
      ['POST', '/stock/movements', { movements: 'all' }, 422],
      ['PUT', `/products/${foreignSku}`, { low_stock_threshold: 1 }, 404],
      ['PUT', `/products/${a}`, { low_stock_threshold: -1 }, 422],
      ['PUT', '/products/SKU%00A', { low_stock_threshold: 1 }, 404],
      ['PUT', `/products/${'x'.repeat(300)}`, { low_stock_threshold: 1 }, 404],
      ['GET', `/stock?account_id=${other.id}`, undefined, 422],
      ['GET', '/stock?low=maybe', undefined, 422],
      ['GET', '/stock?per_page=100000', undefined, 422],
      ['GET', '/stock/movements?since=yesterday', undefined, 422],
      ['GET', '/stock/movements?kind[]=receipt', undefined, 422],
      ['POST', '/warehouses', { code: 'MAIN', name: 'Again' }, 422],
      ['POST', '/warehouses', { code: 'a b', name: 'Spaces' }, 422],
      ['DELETE', '/stock', undefined, 405],
    ];
    for (const [method, path, body, status] of cases) {
      const res = await api(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).to.equal(status);
    }
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM stock_movements WHERE account_id IN ($1, $2)',
      { bind: [acc.id, other.id], type: QueryTypes.SELECT },
    );
    expect(n).to.equal(0);
    const seen = await api('GET', '/warehouses');
    expect(seen.body.data.map((w: { code: string }) => w.code)).to.deep.equal(['MAIN']);
    const orders = restClient(web.url, await acc.token(['CREATE ORDERS']));
    const order = (warehouse: string) => ({
      orders: [{ phone: phone(), full_name: 'Depot', warehouse, products: [{ sku: a, quantity: 2, price: 100 }] }],
    });
    const theirs = await orders('POST', '/orders', order('THEIRS'));
    expect(theirs.status).to.equal(422);
    expect(theirs.body.errors).to.deep.equal({
      'orders.0.warehouse': ["The warehouse THEIRS is not one of the account's."],
    });
    await ctx.services.stock.createWarehouse(acc.seller.actor, { code: 'CASA2', name: 'Casablanca depot' });
    expect((await orders('POST', '/orders', order(' casa2 '))).status).to.equal(201);
    const casa = (await levels(acc.id)).find((l) => l.sku === a && l.warehouse === 'CASA2');
    expect(casa).to.deep.include({ reserved: 2, on_hand: 0 });
    const admin = await makeAdmin(ctx);
    const all = await ctx.services.stock.warehouses(admin.actor, { account_id: other.id });
    expect(all.map((w) => w.code)).to.deep.equal(['MAIN', 'THEIRS']);
  });

  it('When the panel\u2019s Stock page is asked for another account, by an agent, or with odd values, Then it answers words and records nothing', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const [a] = acc.skus.active;
    const page = async (user: TestAccount['seller'], json: unknown, method = 'POST') => {
      const session = await login(web.url, user.email, user.password);
      const res = await session.fetch('/admin/api/pages/stock', { method, json, headers: { origin: web.url } });
      expect(res.status, `${method} ${JSON.stringify(json)}`).to.equal(200);
      return (await res.json()) as { refusal?: string; levels?: { data: { sku: string }[] }; may_adjust?: boolean };
    };
    const adjust = { op: 'adjust', sku: a, kind: 'receipt', quantity: '5' };

    const foreign = await page(acc.seller, { ...adjust, account_id: other.id });
    expect(foreign.refusal).to.be.a('string').and.not.equal('');
    const agent = await page(acc.agent, adjust);
    expect(agent.refusal).to.be.a('string').and.not.equal('');
    expect(agent.may_adjust).to.equal(false);
    for (const odd of [
      { ...adjust, quantity: 'lots' },
      { ...adjust, kind: 'reservation' },
      { op: 'warehouse', code: ['MAIN'], name: { x: 1 } },
      { low: 'maybe', page: -3 },
    ])
      expect((await page(acc.seller, odd)).refusal, JSON.stringify(odd)).to.be.a('string');
    // a NUL byte never reaches the service: the panel's body guard refuses it (a 422 naming the field)
    const guarded = await (
      await login(web.url, acc.seller.email, acc.seller.password)
    ).fetch('/admin/api/pages/stock', {
      method: 'POST',
      json: { ...adjust, sku: `${a}\u0000` },
      headers: { origin: web.url },
    });
    expect(guarded.status).to.equal(422);
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM stock_movements WHERE account_id IN ($1, $2)',
      { bind: [acc.id, other.id], type: QueryTypes.SELECT },
    );
    expect(n).to.equal(0);
    // the page a seller reads is their own account's, whatever it is asked
    const own = await page(acc.seller, { account_id: other.id }, 'POST');
    expect(JSON.stringify(own)).to.not.include(other.skus.active[0]);
    const mine = await page(acc.seller, adjust);
    expect(mine.refusal).to.equal(undefined);
    expect(mine.levels!.data.map((l) => l.sku)).to.include(a);
  });

  it('When a level is tampered with, Then stock:check names it and --repair writes it back from the ledger', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 9 }] });
    await ctx.db.sequelize.query('UPDATE stock_levels SET on_hand = 1 WHERE account_id = $1', { bind: [acc.id] });

    const found = await ctx.services.stock.check(systemActor());
    expect(found.drifts.filter((d) => d.account_id === acc.id)).to.have.length(1);
    await ctx.services.stock.check(systemActor(), true);

    expect((await levels(acc.id)).find((l) => l.sku === a)).to.deep.include({ on_hand: 9 });
    expect((await ctx.services.stock.check(systemActor())).drifts.filter((d) => d.account_id === acc.id)).to.deep.equal(
      [],
    );
    let refused: unknown;
    await ctx.db.sequelize
      .query('UPDATE stock_movements SET quantity = 90 WHERE account_id = $1', { bind: [acc.id] })
      .catch((err: unknown) => (refused = err));
    expect(String(refused)).to.include('never edited');
    // a login that recorded movements can still be deleted: the ledger keeps its name, not its row
    await ctx.services.accounts.deleteUser(systemActor(), acc.seller.id);
    const [kept] = await ctx.db.sequelize.query<{ changed_by: string; user_id: number | null }>(
      'SELECT changed_by, user_id FROM stock_movements WHERE account_id = $1',
      { bind: [acc.id], type: QueryTypes.SELECT },
    );
    expect(kept).to.deep.equal({ changed_by: acc.seller.name, user_id: null });
  });

  it('When an order, a product or the account of movements is deleted, Then the ledger forgets the id or goes with the account', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: b, kind: 'receipt', quantity: 2 }] });
    const lead = await newLead(acc, [[a, 1]]);
    await confirm(acc.seller.actor, lead);
    const order = await orderOf(lead);
    const ids = async () =>
      ctx.db.sequelize.query<{ kind: string; order_id: number | null; product_id: number | null }>(
        'SELECT kind, order_id, product_id FROM stock_movements WHERE account_id = $1 ORDER BY id',
        { bind: [acc.id], type: QueryTypes.SELECT },
      );
    await move(acc, order, 'canceled');
    await ctx.db.sequelize.query('DELETE FROM orders WHERE reference = $1', { bind: [order] });
    await ctx.db.sequelize.query('DELETE FROM products WHERE account_id = $1 AND sku = $2', { bind: [acc.id, b] });
    const forgotten = await ids();
    expect(forgotten.map((m) => [m.kind, m.order_id, m.product_id === null])).to.deep.equal([
      ['receipt', null, true],
      ['reservation', null, false],
      ['release', null, false],
    ]);
    await ctx.db.sequelize.query('DELETE FROM accounts WHERE id = $1', { bind: [acc.id] });
    expect(await ids()).to.deep.equal([]);
  });
});
