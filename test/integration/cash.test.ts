import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { systemActor } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { phone } from '../stock-fixtures.js';

/** Cash (issue 44, docs/cash.md): an order's money, carriers' statements and their outcomes, outstanding cash. */

type Money = { cod_amount: number; delivery_fee: number; return_fee: number; cod_commission: number };

/** A carrier with a tariff: 25 a delivery (30 in Rabat), 15 a return, 2 % of the cash; the account charges 10. */
async function tariffed(acc: TestAccount, code = 'fast') {
  const ctx = getCtx();
  await ctx.services.accounts.updateAccount(systemActor(), acc.id, { buyer_delivery_fee: 10 });
  return ctx.services.shipping.createCompany(systemActor(), {
    account_id: acc.id,
    code,
    name: `Carrier ${code}`,
    endpoint_url: 'http://127.0.0.1:9/x',
    hmac_secret: 'secret-0123456789',
    delivery_fee: 25,
    return_fee: 15,
    cod_commission_percent: 2,
    city_fees: [{ city: 'Rabat', delivery_fee: 30 }],
  });
}

/** An order of 200 in `city`, handed to the carrier and moved through `statuses`. */
async function orderAt(acc: TestAccount, carrierId: number, city: string, statuses: string[]) {
  const ctx = getCtx();
  const { references } = await ctx.services.orders.createMany(acc.seller.actor, {
    orders: [
      {
        phone: phone(),
        full_name: 'Cash Buyer',
        city,
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 200 }],
      },
    ],
  });
  const reference = references[0];
  await ctx.db.sequelize.query(
    `UPDATE orders SET status = 'pushed', shipping_company_id = $2, push_state = 'sent', pushed_at = now(),
            tracking_number = 'TR-' || reference WHERE reference = $1`,
    { bind: [reference, carrierId] },
  );
  for (const status of statuses)
    await ctx.services.orders.updateStatuses(acc.seller.actor, { orders: [{ reference, status }] });
  return reference;
}

const orderRow = async (reference: string) =>
  (
    await getCtx().db.sequelize.query<Money & { payment_status: string; remittance_id: number | null }>(
      `SELECT cod_amount, delivery_fee, return_fee, cod_commission, payment_status, remittance_id
         FROM orders WHERE reference = $1`,
      { bind: [reference], type: QueryTypes.SELECT },
    )
  )[0];

describe('cash', function () {
  this.timeout(60_000);
  const web = useTestServer();

  it('When orders are delivered or returned, Then their money is fixed from the buyer fee and the carrier tariff', async () => {
    const acc = await makeAccount(getCtx());
    const carrier = await tariffed(acc);
    const casa = await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']);
    const rabat = await orderAt(acc, carrier.id, 'rabat', ['shipped', 'delivered']);
    const back = await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'returned']);
    // 200 + 10 collected; 2 % of it; 25 a delivery, 30 in Rabat; a return costs its delivery and 15
    expect(await orderRow(casa)).to.deep.include({
      cod_amount: 21000,
      delivery_fee: 2500,
      return_fee: 0,
      cod_commission: 420,
      payment_status: 'to_collect',
    });
    expect(await orderRow(rabat)).to.deep.include({ delivery_fee: 3000, payment_status: 'to_collect' });
    expect(await orderRow(back)).to.deep.include({
      delivery_fee: 2500,
      return_fee: 1500,
      cod_commission: 0,
      payment_status: 'none',
    });
  });

  it('When a statement has every outcome, Then each line says it and the orders are remitted or disputed once', async () => {
    const acc = await makeAccount(getCtx());
    const carrier = await tariffed(acc);
    const api = restClient(web.url, await acc.token(['MANAGE CASH']));
    const [paid, short, over] = [
      await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']),
      await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']),
      await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']),
    ];
    const pushed = await orderAt(acc, carrier.id, 'Casablanca', []);
    // expected net: 210 − 25 − 4.20 = 180.80
    const res = await api('POST', '/remittances', {
      shipping_company: 'fast',
      statement_number: 'FS-1',
      paid_at: '2026-11-28',
      lines: [
        { reference: paid, amount: 180.8, fees: 29.2 },
        { tracking_number: `TR-${short}`, amount: 150 },
        { reference: over, amount: 200 },
        { reference: pushed, amount: 180.8 },
        { reference: 'ORDNOTHERE1', amount: 10 },
        { reference: paid.toLowerCase(), amount: 180.8 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.lines.map((l: { outcome: string }) => l.outcome)).to.deep.equal([
      'matched',
      'short',
      'over',
      'not_delivered',
      'unknown_order',
      'already_remitted',
    ]);
    expect(res.body.data.lines[0]).to.deep.include({ expected: 180.8, amount: 180.8, fees: 29.2 });
    expect(res.body.data.outcomes).to.deep.equal({
      matched: 1,
      short: 1,
      over: 1,
      unknown_order: 1,
      not_delivered: 1,
      already_remitted: 1,
    });
    expect((await orderRow(paid)).payment_status).to.equal('remitted');
    expect((await orderRow(short)).payment_status).to.equal('disputed');
    expect((await orderRow(over)).payment_status).to.equal('disputed');
    expect((await orderRow(pushed)).payment_status).to.equal('none');

    // the same statement again: the same answer, nothing changes
    const again = await api('POST', '/remittances', {
      shipping_company: 'fast',
      statement_number: 'FS-1',
      paid_at: '2026-11-29',
      lines: [{ reference: short, amount: 180.8 }],
    });
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(res.body);
    expect((await orderRow(short)).payment_status).to.equal('disputed');
    const shown = await api('GET', `/remittances/${res.body.data.id}`);
    expect(shown.body.data).to.deep.equal(res.body.data);
  });

  it('When two statements name one order at the same moment, Then it is remitted once', async () => {
    const acc = await makeAccount(getCtx());
    const carrier = await tariffed(acc);
    const api = restClient(web.url, await acc.token(['MANAGE CASH']));
    const order = await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']);
    const post = (n: string) =>
      api('POST', '/remittances', {
        shipping_company: 'fast',
        statement_number: n,
        paid_at: '2026-11-28',
        lines: [{ reference: order, amount: 180.8 }],
      });
    const [a, b] = await Promise.all([post('A-1'), post('B-1')]);
    const outcomes = [a, b].map((r) => r.body.data.lines[0].outcome).sort();
    expect(outcomes).to.deep.equal(['already_remitted', 'matched']);
    const [{ n }] = await getCtx().db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM remittance_lines l JOIN orders o ON o.id = l.order_id
        WHERE o.reference = $1 AND l.outcome = 'matched'`,
      { bind: [order], type: QueryTypes.SELECT },
    );
    expect(n).to.equal(1);
  });

  it('When cash is outstanding, Then each carrier shows it by age, overdue and disputed, as the orders add up', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const carrier = await tariffed(acc);
    const ages = [1, 10, 20, 40];
    const refs: string[] = [];
    for (const _ of ages) refs.push(await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']));
    for (const [i, days] of ages.entries())
      await ctx.db.sequelize.query(
        `UPDATE orders SET delivered_at = now() - make_interval(days => $2) WHERE reference = $1`,
        {
          bind: [refs[i], days],
        },
      );
    const disputed = await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']);
    const api = restClient(web.url, await acc.token(['MANAGE CASH']));
    await api('POST', '/remittances', {
      shipping_company: 'fast',
      statement_number: 'OUT-1',
      paid_at: '2026-11-28',
      lines: [{ reference: disputed, amount: 1 }],
    });
    const res = await api('GET', '/cash/outstanding');
    expect(res.status).to.equal(200);
    const net = 180.8;
    expect(res.body).to.deep.equal({
      currency: 'MAD',
      data: [
        {
          shipping_company: { code: 'fast', name: 'Carrier fast' },
          to_collect: { orders: 4, amount: 4 * net },
          overdue: { orders: 2, amount: 2 * net },
          disputed: { orders: 1, amount: net },
          ages: {
            '0_7': { orders: 1, amount: net },
            '8_14': { orders: 1, amount: net },
            '15_30': { orders: 1, amount: net },
            over_30: { orders: 1, amount: net },
          },
        },
      ],
    });
  });

  it('When account B sends a statement naming A\u2019s orders, or reads A\u2019s, Then A is untouched and B learns nothing', async () => {
    const ctx = getCtx();
    const [a, b] = [await makeAccount(ctx), await makeAccount(ctx)];
    const carrierA = await tariffed(a);
    await tariffed(b);
    const order = await orderAt(a, carrierA.id, 'Casablanca', ['shipped', 'delivered']);
    const apiA = restClient(web.url, await a.token(['MANAGE CASH']));
    const apiB = restClient(web.url, await b.token(['MANAGE CASH']));
    const mine = await apiA('POST', '/remittances', {
      shipping_company: 'fast',
      statement_number: 'A-ONLY',
      paid_at: '2026-11-28',
      lines: [{ reference: order, amount: 1 }],
    });
    const res = await apiB('POST', '/remittances', {
      shipping_company: 'fast',
      statement_number: 'A-ONLY',
      paid_at: '2026-11-28',
      lines: [
        { reference: order, amount: 180.8 },
        { tracking_number: `TR-${order}`, amount: 180.8 },
      ],
    });
    expect(res.status).to.equal(201);
    expect(res.body.data.lines.map((l: { outcome: string }) => l.outcome)).to.deep.equal([
      'unknown_order',
      'unknown_order',
    ]);
    expect((await orderRow(order)).payment_status).to.equal('disputed');
    expect((await apiB('GET', `/remittances/${mine.body.data.id}`)).status).to.equal(404);
    expect((await apiB('GET', `/remittances?account_id=${a.id}`)).status).to.equal(422);
    expect((await apiB('GET', '/cash/outstanding')).body.data).to.deep.equal([]);
    expect((await apiB('GET', `/cash/outstanding?account_id=${a.id}`)).status).to.equal(422);
  });

  it('When amounts are strings, negative, NaN, huge or carry NUL bytes, Then 422 names them and nothing is recorded', async () => {
    const acc = await makeAccount(getCtx());
    const carrier = await tariffed(acc);
    const order = await orderAt(acc, carrier.id, 'Casablanca', ['shipped', 'delivered']);
    const api = restClient(web.url, await acc.token(['MANAGE CASH']));
    const body = (line: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      shipping_company: 'fast',
      statement_number: 'BAD-1',
      paid_at: '2026-11-28',
      lines: [line],
      ...extra,
    });
    const bad: [unknown, string][] = [
      [body({ reference: order, amount: '180.80' }), 'lines.0.amount'],
      [body({ reference: order, amount: -1 }), 'lines.0.amount'],
      [body({ reference: order, amount: 'NaN' }), 'lines.0.amount'],
      [body({ reference: order, amount: 1e12 }), 'lines.0.amount'],
      [body({ reference: order, amount: 1.005 }), 'lines.0.amount'],
      [body({ reference: order, amount: 1, fees: -2 }), 'lines.0.fees'],
      [body({ amount: 1 }), 'lines.0'],
      [body({ reference: order, amount: 1 }, { statement_number: 'BAD\u0000' }), 'statement_number'],
      [body({ reference: order, amount: 1 }, { paid_at: '2026-02-30' }), 'paid_at'],
      [body({ reference: order, amount: 1 }, { shipping_company: 'nope' }), 'shipping_company'],
      [body({ reference: order, amount: 1 }, { lines: [] }), 'lines'],
      [body({ reference: order, amount: 1 }, { lines: Array(5001).fill({ reference: order, amount: 1 }) }), 'lines'],
    ];
    for (const [b, field] of bad) {
      const res = await api('POST', '/remittances', b);
      expect(res.status, `${field}: ${JSON.stringify(res.body).slice(0, 300)}`).to.equal(422);
      expect(
        Object.keys(res.body.errors).some((k) => k.startsWith(field)),
        JSON.stringify(res.body.errors),
      ).to.equal(true);
    }
    expect((await api('GET', '/remittances')).body.data).to.deep.equal([]);
    expect((await orderRow(order)).payment_status).to.equal('to_collect');
    for (const path of ['/remittances/abc', '/remittances/0', '/remittances/99999999999'])
      expect((await api('GET', path)).status, path).to.equal(404);
    const noScope = restClient(web.url, await acc.token(['VIEW ORDERS']));
    expect((await noScope('GET', '/cash/outstanding')).status).to.equal(403);
    expect((await api('DELETE', '/remittances')).status).to.equal(405);
  });

  it('When a tariff is typed wrong, Then the carrier is refused in words and nothing is saved', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    for (const [field, value] of [
      ['delivery_fee', '25'],
      ['return_fee', -1],
      ['cod_commission_percent', 101],
      ['remit_within_days', 0],
      [
        'city_fees',
        [
          { city: 'Rabat', delivery_fee: 1 },
          { city: 'rabat', delivery_fee: 2 },
        ],
      ],
    ] as [string, unknown][]) {
      const err = await ctx.services.shipping
        .createCompany(systemActor(), {
          account_id: acc.id,
          code: 'typo',
          name: 'Typo',
          endpoint_url: 'http://127.0.0.1:9/x',
          [field]: value,
        } as never)
        .catch((e: unknown) => e);
      expect(Object.keys((err as { errors: object }).errors).join(), field).to.match(new RegExp(`^${field}`));
    }
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM shipping_companies WHERE account_id = $1',
      { bind: [acc.id], type: QueryTypes.SELECT },
    );
    expect(n).to.equal(0);
  });
});
