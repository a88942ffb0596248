import { expect } from 'chai';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { customersByPhones } from '../../src/customers/customer.repository.js';
import { DEFAULT_RISK } from '../../src/accounts/risk-thresholds.js';
import { riskReason, riskySql } from '../../src/customers/customer.risk.js';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { lead, recomputed, stored } from '../customers-expected.js';

/** Orders of `phone` made over REST, then moved to `statuses` (one each) as the carrier's callbacks would leave them. */
async function ordersWithOutcomes(url: string, acc: TestAccount, phone: string, statuses: string[]) {
  const call = restClient(url, await acc.token());
  const made = await call('POST', '/orders', { orders: statuses.map(() => lead(acc, phone)) });
  expect(made.status).to.equal(201);
  for (const [i, status] of statuses.entries())
    await getCtx().models.Order.update(
      { status },
      { where: { account_id: acc.id, reference: made.body.references[i] } },
    );
}

const recordOf = async (accountId: number, phone: string) =>
  (await customersByPhones(getCtx().db.sequelize, accountId, [phone])).get(phone)!;

describe('customers: the risk rule', () => {
  const web = useTestServer();

  it('When a customer has as many returned parcels as the limit, Then it is risky and the reason says so', async () => {
    const acc = await makeAccount(getCtx());
    await ordersWithOutcomes(web.url, acc, '+212611000001', ['returned', 'returned', 'delivered', 'delivered']);
    const r = await recordOf(acc.id, '+212611000001');
    expect(r).to.include({ risky: true, risk_reason: '2 parcels returned (limit 2)', delivery_rate: 50 });
  });

  it('When a customer has enough finished orders and a delivery rate under the limit, Then it is risky, each reason given', async () => {
    const acc = await makeAccount(getCtx());
    await ordersWithOutcomes(web.url, acc, '+212611000002', ['delivered', 'returned', 'canceled', 'new']);
    expect(await recordOf(acc.id, '+212611000002')).to.include({ risky: false, risk_reason: null, delivery_rate: 50 });
    await ordersWithOutcomes(web.url, acc, '+212611000003', ['delivered', 'returned', 'shipped']);
    await getCtx().models.Order.update(
      { status: 'returned' },
      { where: { account_id: acc.id, phone_normalized: '+212611000003', status: 'shipped' } },
    );
    const r = await recordOf(acc.id, '+212611000003');
    expect(r.risk_reason).to.equal('2 parcels returned (limit 2); 1 of 3 orders delivered (33 %, under 50 %)');
    expect(r.risky).to.equal(true);
  });

  it("When the seller changes the account's thresholds, Then the next record follows them, and another account's do not move", async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    await ordersWithOutcomes(web.url, acc, '+212611000004', ['delivered', 'delivered', 'returned']);
    await ordersWithOutcomes(web.url, other, '+212611000004', ['delivered', 'delivered', 'returned']);
    expect(await recordOf(acc.id, '+212611000004')).to.include({ risky: false });
    const saved = await getCtx().services.accounts.updateAccount(acc.seller.actor, acc.id, {
      risk_min_returns: '5',
      risk_min_orders: 3,
      risk_min_delivery_rate: 70,
    });
    expect(saved).to.include({ risk_min_returns: 5, risk_min_orders: 3, risk_min_delivery_rate: 70 });
    expect((await recordOf(acc.id, '+212611000004')).risk_reason).to.equal(
      '2 of 3 orders delivered (67 %, under 70 %)',
    );
    await getCtx().services.accounts.updateAccount(acc.seller.actor, acc.id, { risk_min_returns: 1 });
    expect((await recordOf(acc.id, '+212611000004')).risk_reason).to.equal(
      '1 parcel returned (limit 1); 2 of 3 orders delivered (67 %, under 70 %)',
    );
    expect(await recordOf(other.id, '+212611000004')).to.include({ risky: false, risk_reason: null });
  });

  it('When thresholds are out of range or not whole numbers, Then a validation error names each and nothing changes', async () => {
    const acc = await makeAccount(getCtx());
    const err = await getCtx()
      .services.accounts.updateAccount(acc.seller.actor, acc.id, {
        risk_min_returns: 0,
        risk_min_orders: '2.5',
        risk_min_delivery_rate: 101,
      })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ValidationError);
    expect(Object.keys((err as ValidationError).errors).sort()).to.deep.equal([
      'risk_min_delivery_rate',
      'risk_min_orders',
      'risk_min_returns',
    ]);
    const row = (await getCtx().models.Account.findByPk(acc.id))!;
    expect([row.risk_min_returns, row.risk_min_orders, row.risk_min_delivery_rate]).to.deep.equal([2, 3, 50]);
  });

  it("When a seller names another account's id, Then it is not found and that account's thresholds stay", async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    const err = await getCtx()
      .services.accounts.updateAccount(acc.seller.actor, other.id, { risk_min_returns: 1 })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotFoundError);
    expect((await getCtx().models.Account.findByPk(other.id))!.risk_min_returns).to.equal(2);
  });

  it('When the rule is read as SQL (the panel filter) and in words, Then both agree on every case around the limits', async () => {
    const cases: [number, number][] = [];
    for (let delivered = 0; delivered <= 4; delivered++)
      for (let returned = 0; returned <= 3; returned++) cases.push([delivered, returned]);
    const rows = await getCtx().db.sequelize.query<{ risky: boolean }>(
      `SELECT ${riskySql('c', 'a')} AS risky
         FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS c(delivered, returned, n)
        CROSS JOIN (SELECT 2 AS risk_min_returns, 3 AS risk_min_orders, 50 AS risk_min_delivery_rate) a
        ORDER BY c.n`,
      { bind: [cases.map((c) => c[0]), cases.map((c) => c[1])], type: QueryTypes.SELECT },
    );
    const inWords = cases.map(([delivered, returned]) => riskReason({ delivered, returned }, DEFAULT_RISK) !== null);
    expect(rows.map((r) => r.risky)).to.deep.equal(inWords);
    expect(inWords.filter(Boolean).length, 'both branches and neither are among the cases').to.be.within(1, 19);
  });
});

describe('customers: concurrent writers', () => {
  const web = useTestServer();

  it('When two transactions add leads of one phone at once, Then the customer counts both', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    await call('POST', '/leads', { leads: [lead(acc, '0612000001')] });
    const clients = [new pg.Client(getCtx().db.url), new pg.Client(getCtx().db.url)];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const insert = (c: pg.Client, ref: string) =>
        c.query(
          `INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name)
           VALUES ($1, $2, '0612000001', '+212612000001', 'Concurrent')`,
          [acc.id, ref],
        );
      await clients[0].query('BEGIN');
      await clients[1].query('BEGIN');
      await insert(clients[0], 'LDCONCURRNT1');
      // the second waits for the first's customer row, then adds to what the first committed
      const second = insert(clients[1], 'LDCONCURRNT2').then(() => clients[1].query('COMMIT'));
      await new Promise((r) => setTimeout(r, 200));
      await clients[0].query('COMMIT');
      await second;
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    expect((await recordOf(acc.id, '+212612000001')).leads).to.equal(3);
    expect(await stored(acc.id)).to.deep.equal(await recomputed(acc.id));
  });

  it('When bulk statements meet existing customers, alone and two at once, Then every lead counts once', async () => {
    // migration 20261210000000: a statement of 100 leads or more inserts its customers plainly first, and falls back
    // to the upsert when a phone is a customer already or becomes one in the other transaction
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    await call('POST', '/leads', { leads: [lead(acc, '0613000150')] });
    const clients = [new pg.Client(getCtx().db.url), new pg.Client(getCtx().db.url)];
    await Promise.all(clients.map((c) => c.connect()));
    // 150 leads of phones from..from+149 in one statement
    const bulk = (c: pg.Client, tag: string, from: number) =>
      c.query(
        `INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name)
         SELECT $1, $2 || lpad(g::text, 6, '0'), '+2126130' || lpad(g::text, 5, '0'),
                '+2126130' || lpad(g::text, 5, '0'), 'Bulk'
           FROM generate_series($3::int, $3::int + 149) g`,
        [acc.id, `LDBK${tag}`, from],
      );
    try {
      await bulk(clients[0], 'A', 1); // phones 1–150: 150 is a customer already
      await clients[0].query('BEGIN');
      await clients[1].query('BEGIN');
      await bulk(clients[0], 'B', 101); // 101–250, uncommitted
      // 201–350 shares 201–250 with the first: it waits for it, then adds to what it committed
      const second = bulk(clients[1], 'C', 201).then(() => clients[1].query('COMMIT'));
      await new Promise((r) => setTimeout(r, 200));
      await clients[0].query('COMMIT');
      await second;
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const rows = await stored(acc.id);
    const leadsOf = (n: number) =>
      (rows as { phone_normalized: string; leads: number }[]).find(
        (r) => r.phone_normalized === `+2126130${String(n).padStart(5, '0')}`,
      )?.leads;
    expect([1, 100, 101, 150, 200, 201, 250, 251, 350].map(leadsOf)).to.deep.equal([1, 1, 2, 3, 1, 2, 2, 1, 1]);
    expect(rows.reduce((n: number, r: any) => n + r.leads, 0)).to.equal(1 + 3 * 150);
    expect(rows).to.deep.equal(await recomputed(acc.id));
  });

  it('When many requests add and confirm leads of a few phones in parallel, Then nothing is lost', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    const phones = ['0612000011', '0612000012', '0612000013'];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/leads', { leads: phones.map((p, j) => lead(acc, phones[(i + j) % 3] ?? p)) }),
      ),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(Array(8).fill(201));
    const refs = answers.flatMap((a) => a.body.references as string[]);
    await Promise.all(
      [0, 1, 2, 3].map((i) =>
        call('PUT', '/leads', {
          leads: refs.slice(i * 6, i * 6 + 6).map((reference) => ({ reference, status: 'confirmed' })),
        }),
      ),
    );
    const rows = await stored(acc.id);
    expect(rows.map((r: any) => r.leads)).to.deep.equal([8, 8, 8]);
    expect(rows.reduce((n: number, r: any) => n + r.orders, 0)).to.equal(24);
    expect(rows).to.deep.equal(await recomputed(acc.id));
  });
});
