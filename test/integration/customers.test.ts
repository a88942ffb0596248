import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import { customersByPhones } from '../../src/customers/customer.repository.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { postCallback, serveLocal, useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { lead, recomputed, stored } from '../customers-expected.js';

const SECRET = 'carrier-secret-0123456789';
const PHONE = '+212612345678';

/** A CSV import of `rows` (phone, city) run to the end by the job's code. */
async function importCsv(acc: TestAccount, rows: [string, string][]) {
  const text = ['phone,sku,full_name,city', ...rows.map(([p, c]) => `${p},${acc.skus.active[1]},Imported,${c}`)];
  const file = path.join(os.tmpdir(), `customers-${Date.now()}-${Math.random().toString(36).slice(2)}.csv`);
  await fs.promises.writeFile(file, text.join('\n'));
  const run = await getCtx().services.imports.start(acc.seller.actor, {
    path: file,
    originalname: 'customers.csv',
    size: fs.statSync(file).size,
  });
  await getCtx().services.imports.run(run.id);
}

describe('customers', () => {
  const web = useTestServer();

  describe('figures after leads, confirmations, pushes and carrier callbacks', () => {
    let acc: TestAccount;
    let carrier: Awaited<ReturnType<typeof serveLocal>>;
    let companyId: number;
    let call: ReturnType<typeof restClient>;

    before(async () => {
      acc = await makeAccount(getCtx());
      carrier = await serveLocal((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ tracking_number: `TRK-${JSON.parse(body).reference}` }));
        });
      });
      companyId = (
        await getCtx().services.shipping.createCompany(systemActor(), {
          account_id: acc.id,
          code: 'custship',
          name: 'Cust Ship',
          endpoint_url: carrier.url('/shipments'),
          hmac_secret: SECRET,
        })
      ).id;
      call = restClient(web.url, await acc.token());
    });
    after(() => carrier.close());

    /** Confirms the leads (REST PUT), pushes their orders (the push job's code, against the local carrier). */
    async function confirmAndPush(references: string[]) {
      const put = await call('PUT', '/leads', {
        leads: references.map((reference) => ({ reference, status: 'confirmed' })),
      });
      expect(put.status).to.equal(200);
      const orderRefs: string[] = put.body.orders.map((o: { order_reference: string }) => o.order_reference);
      const pushed = await call('POST', '/orders/push', { references: orderRefs, shipping_company: 'custship' });
      expect(pushed.status).to.equal(202);
      for (const reference of orderRefs) {
        const o = (await getCtx().models.Order.findOne({ where: { account_id: acc.id, reference } }))!;
        expect(await getCtx().services.orders.pushOne(o.id, 'test', null)).to.equal('sent');
      }
      return orderRefs;
    }

    const callback = async (reference: string, status: string) => {
      const res = await postCallback(web.url, 'custship', companyId, SECRET, { orders: [{ reference, status }] });
      expect(res.status, `callback ${reference} → ${status}`).to.equal(200);
    };

    it('When leads of one phone arrive typed in national and international forms, Then they make one customer', async () => {
      const res = await call('POST', '/leads', {
        leads: [lead(acc, '0612345678'), lead(acc, '+212612345678'), lead(acc, '00212 6 12 34 56 78')],
      });
      expect(res.status).to.equal(201);
      const shown = await call('GET', `/leads/${res.body.references[2]}/show`);
      expect(shown.body.data.customer).to.include({ phone: PHONE, leads: 3, confirmed: 0, orders: 0, risky: false });
      expect(shown.body.data.customer.delivery_rate).to.equal(null);
      expect(await stored(acc.id)).to.deep.equal(await recomputed(acc.id));
    });

    it('When leads are imported, confirmed, pushed, delivered and returned, Then the figures equal those recomputed from the tables and histories', async () => {
      await importCsv(acc, [
        ['612345678', 'Rabat'],
        ['+212655555555', 'Tanger'],
      ]);
      const other = await call('POST', '/leads', { leads: [lead(acc, '0655555555', { city: 'Oujda' })] });
      const mine = await call('GET', '/leads?search_by=phone&keyWord=612345678&per_page=100');
      const refs = mine.body.data.map((l: { reference: string }) => l.reference);
      expect(refs).to.have.length(4);
      const [first, second] = await confirmAndPush([refs[0], refs[1]]);
      const [third] = await confirmAndPush([other.body.references[0]]);
      for (const [ref, outcome] of [
        [first, 'delivered'],
        [second, 'returned'],
        [third, 'delivered'],
      ]) {
        await callback(ref, 'shipped');
        await callback(ref, outcome);
      }
      expect(await stored(acc.id)).to.deep.equal(await recomputed(acc.id));
      // an order made over REST, without a lead, counts for its phone's customer
      const direct = await call('POST', '/orders', { orders: [lead(acc, '06 12 34 56 78', { city: 'Meknes' })] });
      expect(direct.status).to.equal(201);

      expect(await stored(acc.id)).to.deep.equal(await recomputed(acc.id));
      const record = (await customersByPhones(getCtx().db.sequelize, acc.id, [PHONE])).get(PHONE)!;
      expect(record).to.deep.include({
        leads: 4,
        confirmed: 2,
        orders: 3,
        delivered: 1,
        returned: 1,
        canceled: 0,
        delivery_rate: 50,
        city: 'Rabat',
        risky: false,
        risk_reason: null,
      });
      expect(record.last_order).to.include({ reference: direct.body.references[0], status: 'new' });
    });

    it('When an order is canceled and deleted, Then its customer counts it, then no longer', async () => {
      const made = await call('POST', '/orders', { orders: [lead(acc, '+212677777777')] });
      const [reference] = made.body.references;
      await call('PUT', '/orders', { orders: [{ reference, status: 'canceled' }] });
      const canceled = (await customersByPhones(getCtx().db.sequelize, acc.id, ['+212677777777'])).get('+212677777777');
      expect(canceled).to.include({ orders: 1, canceled: 1 });
      expect(canceled!.last_order).to.include({ reference, status: 'canceled' });
      expect((await call('DELETE', '/orders', { references: [reference] })).status).to.equal(200);
      expect((await customersByPhones(getCtx().db.sequelize, acc.id, ['+212677777777'])).size).to.equal(0);
      expect(await stored(acc.id)).to.deep.equal(await recomputed(acc.id));
    });
  });

  describe('tenancy, phones and edits', () => {
    it('When another account has a lead of the same phone, Then its customer is separate and its reference is unknown here', async () => {
      const a = await makeAccount(getCtx());
      const b = await makeAccount(getCtx());
      const callA = restClient(web.url, await a.token());
      const callB = restClient(web.url, await b.token());
      const [refA] = (await callA('POST', '/leads', { leads: [lead(a, '0612345678'), lead(a, '0612345678')] })).body
        .references;
      const [refB] = (await callB('POST', '/leads', { leads: [lead(b, '+212612345678')] })).body.references;
      expect((await callB('GET', `/leads/${refB}/show`)).body.data.customer).to.include({ phone: PHONE, leads: 1 });
      expect((await callA('GET', `/leads/${refA}/show`)).body.data.customer).to.include({ phone: PHONE, leads: 2 });
      const foreign = await callB('GET', `/leads/${refA}/show`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body).to.deep.equal({ message: 'Not found.' });
      expect((await customersByPhones(getCtx().db.sequelize, b.id, [PHONE])).get(PHONE)!.leads).to.equal(1);
    });

    it('When a lead has a phone without an E.164 form, Then it has no customer', async () => {
      const a = await makeAccount(getCtx());
      const call = restClient(web.url, await a.token());
      const [ref] = (await call('POST', '/leads', { leads: [lead(a, 'call me 123')] })).body.references;
      const shown = await call('GET', `/leads/${ref}/show`);
      expect(shown.body.data.status).to.equal('wrong');
      expect(shown.body.data.customer).to.equal(null);
      expect(await stored(a.id)).to.deep.equal([]);
    });

    it("When a lead's phone is edited, Then its counts move to the new phone's customer", async () => {
      const a = await makeAccount(getCtx());
      const call = restClient(web.url, await a.token());
      const [ref] = (await call('POST', '/leads', { leads: [lead(a, '0611111111'), lead(a, '0622222222')] })).body
        .references;
      const l = (await getCtx().models.Lead.findOne({ where: { account_id: a.id, reference: ref } }))!;
      await getCtx().services.leads.update(a.seller.actor, l.id, {
        status: 'new',
        full_name: 'Karim Haddad',
        phone: '06 44 44 44 44',
      });
      const rows = await stored(a.id);
      expect(rows.map((r: any) => [r.phone_normalized, r.leads])).to.deep.equal([
        ['+212622222222', 1],
        ['+212644444444', 1],
      ]);
      expect(rows).to.deep.equal(await recomputed(a.id));
    });

    it('When leads are deleted, Then their customer loses them, and goes with the last one', async () => {
      const a = await makeAccount(getCtx());
      const call = restClient(web.url, await a.token());
      const refs = (await call('POST', '/leads', { leads: [lead(a, '0633333333'), lead(a, '0633333333')] })).body
        .references;
      await call('DELETE', '/leads', { references: [refs[1]] });
      expect(await stored(a.id)).to.deep.equal(await recomputed(a.id));
      expect((await stored(a.id))[0]).to.include({ leads: 1 });
      await call('DELETE', '/leads', { references: [refs[0]] });
      expect(await stored(a.id)).to.deep.equal([]);
    });
  });
});
