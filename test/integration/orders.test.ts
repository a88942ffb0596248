import { QueryTypes } from 'sequelize';
import { expect } from 'chai';
import { SCOPES, systemActor, type Scope } from '../../src/actor.js';
import { signBody } from '../../src/shipping/shipping.service.js';
import { createJobSystem, type JobSystem } from '../../jobs/agenda.js';
import { jobDefinitions } from '../../jobs/index.js';
import type { JobDefinition } from '../../jobs/job.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { postCallback, serveLocal, startTestServer, useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';

const SECRET = 'carrier-secret-0123456789';

const order = (acc: TestAccount, over: Record<string, unknown> = {}) => ({
  phone: '+212600000001',
  full_name: 'Karim Haddad',
  city: 'Fes',
  address: '3 Rue Talaa',
  products: [{ sku: acc.skus.active[1], quantity: 2, price: 200 }],
  ...over,
});

/** A real carrier on 127.0.0.1: answers per a script of behaviours and records every call. */
async function startCarrier(script: ('ok' | '500' | 'slow')[]) {
  const calls: { body: string; signature: string; idempotency: string }[] = [];
  const carrier = await serveLocal((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push({
        body,
        signature: String(req.headers['x-signature']),
        idempotency: String(req.headers['x-idempotency-key']),
      });
      const step = script[Math.min(calls.length - 1, script.length - 1)];
      if (step === '500') {
        res.writeHead(500);
        res.end('oops');
        return;
      }
      if (step === 'slow') {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"tracking_number":"LATE"}');
        }, 1500);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ tracking_number: `TRK-${JSON.parse(body).reference}` }));
    });
  });
  return { url: carrier.url('/shipments'), calls, close: carrier.close };
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('orders', () => {
  const web = useTestServer();

  describe('REST', () => {
    it('creates orders atomically with products and history, and rejects 1,001 or an inactive sku with nothing written', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token(['CREATE ORDERS', 'VIEW ORDERS'], 'shop'));
      const res = await call('POST', '/orders', { orders: [order(acc), order(acc, { full_name: 'Second Buyer' })] });
      expect(res.status).to.equal(201);
      expect(res.body.references).to.have.length(2);
      const { Order, OrderHistory } = getCtx().models;
      expect(await Order.count({ where: { account_id: acc.id } })).to.equal(2);
      const o = await Order.findOne({ where: { reference: res.body.references[0] } });
      expect(Number(o!.total)).to.equal(400);
      const h = await OrderHistory.findAll({ where: { order_id: o!.id } });
      expect(h.map((x) => [x.old_status, x.new_status, x.changed_by])).to.deep.equal([
        [null, 'new', `shop (${acc.seller.name})`],
      ]);
      expect(
        (await call('POST', '/orders', { orders: Array.from({ length: 1001 }, () => order(acc)) })).status,
      ).to.equal(422);
      const bad = await call('POST', '/orders', {
        orders: [order(acc), order(acc, { products: [{ sku: acc.skus.inactive, quantity: 1, price: 5 }] })],
      });
      expect(bad.body.errors).to.have.property('orders.1.products.0.sku');
      expect(await Order.count({ where: { account_id: acc.id } })).to.equal(2);
    });

    const scoped: [string, string, Scope][] = [
      ['POST', '/orders', 'CREATE ORDERS'],
      ['GET', '/orders', 'VIEW ORDERS'],
      ['GET', '/orders/OR0000000000/show', 'VIEW ORDERS'],
      ['PUT', '/orders', 'UPDATE ORDERS'],
      ['DELETE', '/orders', 'DELETE ORDERS'],
      ['POST', '/orders/push', 'UPDATE ORDERS'],
    ];
    for (const [method, path, scope] of scoped) {
      it(`answers 403 on ${method} ${path} without ${scope}`, async () => {
        const acc = await makeAccount(getCtx());
        expect(
          (
            await restClient(web.url, await acc.token(SCOPES.filter((s) => s !== scope)))(
              method,
              path,
              method === 'GET' ? undefined : {},
            )
          ).status,
        ).to.equal(403);
      });
    }

    it('lists with status filter and tracking-number search, and shows one order', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/orders', { orders: [order(acc), order(acc)] })).body.references;
      await call('PUT', '/orders', { orders: [{ reference: refs[0], status: 'canceled' }] });
      await getCtx().models.Order.update({ tracking_number: 'TRK-42' }, { where: { reference: refs[1] } });
      expect(
        (await call('GET', '/orders?status=canceled')).body.data.map((o: { reference: string }) => o.reference),
      ).to.deep.equal([refs[0]]);
      const found = await call('GET', '/orders?search_by=tracking_number&keyWord=TRK-42');
      expect(found.body.meta.total).to.equal(1);
      expect(found.body.data[0]).to.include({ reference: refs[1], tracking_number: 'TRK-42' });
      const show = await call('GET', `/orders/${refs[0]}/show`);
      expect(show.body.data).to.include({ reference: refs[0], status: 'canceled', total: 400 });
      expect(show.body.data.history.map((h: { new_status: string }) => h.new_status)).to.deep.equal([
        'new',
        'canceled',
      ]);
      expect((await call('GET', '/orders?search_by=email&keyWord=x')).status).to.equal(422);
    });

    it('refuses an illegal move naming the reference and the move, atomically', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/orders', { orders: [order(acc), order(acc)] })).body.references;
      const res = await call('PUT', '/orders', {
        orders: [
          { reference: refs[0], status: 'canceled' },
          { reference: refs[1], status: 'delivered' },
        ],
      });
      expect(res.status).to.equal(422);
      expect(res.body.errors['orders.1.status']).to.deep.equal([`Order ${refs[1]} cannot move from new to delivered.`]);
      expect((await getCtx().models.Order.findOne({ where: { reference: refs[0] } }))!.status).to.equal('new');
    });

    it('deletes only new or canceled orders', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/orders', { orders: [order(acc), order(acc), order(acc)] })).body.references;
      await getCtx().models.Order.update({ status: 'shipped' }, { where: { reference: refs[2] } });
      await call('PUT', '/orders', { orders: [{ reference: refs[1], status: 'canceled' }] });
      const refused = await call('DELETE', '/orders', { references: refs });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors).to.have.all.keys('references.2');
      const ok = await call('DELETE', '/orders', { references: refs.slice(0, 2) });
      expect(ok.body).to.deep.equal({ message: '2 orders deleted.', deleted: 2 });
      expect(await getCtx().models.Order.count({ where: { account_id: acc.id } })).to.equal(1);
    });

    it('queues a runnable job again for an order whose earlier push failed for good', async () => {
      const acc = await makeAccount(getCtx());
      await getCtx().services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code: 'fastship',
        name: 'Fast Ship',
        endpoint_url: 'http://127.0.0.1:9/orders',
        hmac_secret: SECRET,
      });
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/orders', { orders: [order(acc)] })).body.references;
      const o = (await getCtx().models.Order.findOne({ where: { reference: ref } }))!;
      const push = () => call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' });
      const runnable = async () =>
        (
          await getCtx().db.sequelize.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM agenda_jobs WHERE name = 'push-order' AND (data->>'orderId')::bigint = $1
                AND next_run_at IS NOT NULL`,
            { bind: [o.id], type: QueryTypes.SELECT },
          )
        )[0].n;
      expect((await push()).body).to.include({ queued: 1 });
      expect(await runnable()).to.equal(1);
      // what the worker leaves when every retry failed: the job finished for good, the order failed
      await getCtx().db.sequelize.query(
        `UPDATE agenda_jobs SET next_run_at = NULL, locked_at = NULL, fail_count = 6, failed_at = now()
          WHERE name = 'push-order' AND (data->>'orderId')::bigint = $1`,
        { bind: [o.id] },
      );
      await o.update({ push_state: 'failed', last_push_error: 'carrier answered HTTP 500' });
      expect((await push()).body).to.include({ queued: 1, skipped: 0 });
      expect(await runnable(), 'the re-push has a job that will run').to.equal(1);
      expect((await o.reload()).push_state).to.equal('queued');
    });

    it("treats another account's order as unknown on every endpoint", async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const [ref] = (await restClient(web.url, await other.token())('POST', '/orders', { orders: [order(other)] })).body
        .references;
      await getCtx().services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code: 'fastship',
        name: 'Fast Ship',
        endpoint_url: 'http://127.0.0.1:9/x',
        hmac_secret: SECRET,
      });
      const call = restClient(web.url, await acc.token());
      expect((await call('GET', `/orders/${ref}/show`)).status).to.equal(404);
      expect((await call('GET', `/orders?search_by=reference&keyWord=${ref}`)).body.meta.total).to.equal(0);
      expect((await call('PUT', '/orders', { orders: [{ reference: ref, status: 'canceled' }] })).status).to.equal(422);
      expect((await call('DELETE', '/orders', { references: [ref] })).status).to.equal(422);
      expect((await call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' })).status).to.equal(
        422,
      );
      expect((await getCtx().models.Order.findOne({ where: { reference: ref } }))!.status).to.equal('new');
    });
  });

  describe('push to shipping company', () => {
    let jobs: JobSystem;
    const slowStarted: number[] = [];
    // the slow jobs hold their slots until the test that queues them opens the gate (in its finally)
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => (openGate = () => resolve()));
    const slowJob: JobDefinition = {
      name: 'test-slow-important',
      priority: 'IMPORTANT',
      concurrency: (ctx) => ctx.config.workerImportantConcurrency,
      handler: async () => {
        slowStarted.push(Date.now());
        await gate;
      },
    };
    before(async () => {
      jobs = await createJobSystem(getCtx().config, getCtx().db.url, getCtx().logger, getCtx().metrics);
      await jobs.startWorker(getCtx(), [...jobDefinitions, slowJob]);
    });
    after(async function () {
      this.timeout(20_000);
      openGate();
      await jobs.close({ graceMs: 300 });
      // no other worker defines the slow job: what it left would wait in agenda_jobs for ever
      await getCtx().db.sequelize.query('DELETE FROM agenda_jobs WHERE name = $1', { bind: [slowJob.name] });
    });

    /** Waits until every push job of the order has run for good: finished, not due again, not locked. */
    const pushJobsSettled = (orderId: number) =>
      waitFor(async () => {
        const [{ n, done }] = await getCtx().db.sequelize.query<{ n: number; done: number }>(
          `SELECT count(*)::int AS n,
                  count(*) FILTER (WHERE last_finished_at IS NOT NULL AND next_run_at IS NULL
                                     AND locked_at IS NULL)::int AS done
             FROM agenda_jobs WHERE name = 'push-order' AND (data->>'orderId')::bigint = $1`,
          { bind: [orderId], type: QueryTypes.SELECT },
        );
        return n > 0 && done === n;
      });

    async function setup(script: ('ok' | '500' | 'slow')[], timeoutMs = 2000) {
      const acc = await makeAccount(getCtx());
      const carrier = await startCarrier(script);
      await getCtx().services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code: 'fastship',
        name: 'Fast Ship',
        endpoint_url: carrier.url,
        hmac_secret: SECRET,
        timeout_ms: timeoutMs,
      });
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/orders', { orders: [order(acc)] })).body.references;
      return { acc, carrier, call, ref };
    }
    const orderOf = (ref: string) => getCtx().models.Order.findOne({ where: { reference: ref } });

    it('pushes a signed order and records the tracking number; a repeated request makes no second call', async function () {
      this.timeout(20_000);
      const { carrier, call, ref } = await setup(['ok']);
      try {
        const res = await call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' });
        expect(res.status).to.equal(202);
        expect(res.body).to.include({ queued: 1 });
        const again = await call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' });
        expect(again.status).to.equal(202);
        expect(again.body).to.include({ queued: 0, skipped: 1 });
        const o = await waitFor(async () => {
          const x = await orderOf(ref);
          return x?.status === 'pushed' && x;
        });
        expect(o.tracking_number).to.equal(`TRK-${ref}`);
        // only a push job calls the carrier: once the order's have all run for good, a second call cannot come
        await pushJobsSettled(o.id);
        expect(carrier.calls).to.have.length(1);
        expect(carrier.calls[0].idempotency).to.equal(ref);
        expect(carrier.calls[0].signature).to.equal(signBody(SECRET, carrier.calls[0].body));
        expect(JSON.parse(carrier.calls[0].body)).to.include({ reference: ref, full_name: 'Karim Haddad', total: 400 });
        const h = await getCtx().models.OrderHistory.findAll({ where: { order_id: o.id }, order: [['id', 'ASC']] });
        expect(h.map((x) => x.new_status)).to.deep.equal(['new', 'pushed']);
        await getCtx().services.orders.pushOne(o.id, 'x', null);
        expect(carrier.calls).to.have.length(1);
      } finally {
        await carrier.close();
      }
    });

    it('retries after a 5xx with back-off, keeping the error, then succeeds', async function () {
      this.timeout(20_000);
      const { carrier, call, ref } = await setup(['500', 'ok']);
      try {
        await call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' });
        const failed = await waitFor(async () => {
          const x = await orderOf(ref);
          return x?.last_push_error ? x : null;
        });
        expect(failed.last_push_error).to.match(/HTTP 500/);
        expect(failed.status).to.equal('new');
        const o = await waitFor(async () => {
          const x = await orderOf(ref);
          return x?.status === 'pushed' && x;
        }, 15_000);
        expect(o.push_attempts).to.equal(2);
        expect(o.last_push_error).to.equal(null);
        expect(carrier.calls.map((c) => c.idempotency)).to.deep.equal([ref, ref]);
      } finally {
        await carrier.close();
      }
    });

    it('keeps a timeout as the last push error and leaves the order new', async function () {
      this.timeout(20_000);
      const { carrier, call, ref } = await setup(['slow'], 200);
      try {
        await call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' });
        const o = await waitFor(async () => {
          const x = await orderOf(ref);
          return x?.last_push_error ? x : null;
        });
        expect(o.last_push_error).to.equal('carrier did not answer within 200 ms');
        expect(o.status).to.equal('new');
        expect(o.push_state).to.equal('failed');
      } finally {
        await carrier.close();
      }
    });

    it('starts an URGENT push within 1 s while IMPORTANT work fills its own slots', async function () {
      this.timeout(20_000);
      const { carrier, call, ref } = await setup(['ok']);
      try {
        const ctx = getCtx();
        const n = ctx.config.workerImportantConcurrency * 2;
        for (let i = 0; i < n; i++) await ctx.queue.enqueue('test-slow-important', { i }, { priority: 'IMPORTANT' });
        await waitFor(async () => slowStarted.length >= ctx.config.workerImportantConcurrency);
        const t0 = Date.now();
        await call('POST', '/orders/push', { references: [ref], shipping_company: 'fastship' });
        await waitFor(async () => carrier.calls.length > 0, 5000);
        expect(Date.now() - t0).to.be.below(1000);
        expect(slowStarted.length).to.be.below(n);
      } finally {
        openGate();
        await carrier.close();
      }
    });
  });

  describe('carrier callback', () => {
    it('moves pushed orders to shipped then delivered with the company as actor; a bad signature is 401', async () => {
      const acc = await makeAccount(getCtx());
      const company = await getCtx().services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code: 'callship',
        name: 'Call Ship',
        endpoint_url: 'http://127.0.0.1:9/x',
        hmac_secret: SECRET,
      });
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/orders', { orders: [order(acc)] })).body.references;
      await getCtx().models.Order.update(
        { status: 'pushed', shipping_company_id: company.id, tracking_number: 'CS-1' },
        { where: { reference: ref } },
      );
      const post = (body: unknown, secret = SECRET) => postCallback(web.url, 'callship', company.id, secret, body);
      const forged = await post({ orders: [{ reference: ref, status: 'delivered' }] }, 'wrong-secret-wrong-secret');
      expect(forged.status).to.equal(401);
      expect((await orderOf(ref))!.status).to.equal('pushed');
      const shipped = await post({ orders: [{ tracking_number: 'CS-1', status: 'shipped' }] });
      expect(shipped.status).to.equal(200);
      expect(await shipped.json()).to.deep.equal({ message: '1 order updated.', updated: 1 });
      expect((await post({ orders: [{ reference: ref, status: 'delivered' }] })).status).to.equal(200);
      const illegal = await post({ orders: [{ reference: ref, status: 'returned' }] });
      expect(illegal.status).to.equal(422);
      expect((await illegal.json()).errors['orders.0.status']).to.deep.equal([
        `Order ${ref} cannot move from delivered to returned.`,
      ]);
      expect((await post({ orders: [{ reference: 'ORNOSUCHORDR', status: 'shipped' }] })).status).to.equal(422);
      const h = await getCtx().models.OrderHistory.findAll({ where: { order_reference: ref }, order: [['id', 'ASC']] });
      expect(h.map((x) => [x.old_status, x.new_status, x.changed_by])).to.deep.equal([
        [null, 'new', `${h[0].changed_by}`],
        ['pushed', 'shipped', 'Call Ship'],
        ['shipped', 'delivered', 'Call Ship'],
      ]);
      expect((await orderOf(ref))!.status).to.equal('delivered');
    });

    it("refuses a callback without the company id, with a stale or future timestamp (replay), another company's id, or a body over 256 KB", async () => {
      const acc = await makeAccount(getCtx());
      const company = await getCtx().services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code: 'replay',
        name: 'Replay',
        endpoint_url: 'http://127.0.0.1:9/x',
        hmac_secret: SECRET,
      });
      const other = await makeAccount(getCtx());
      const twin = await getCtx().services.shipping.createCompany(systemActor(), {
        account_id: other.id,
        code: 'replay',
        name: 'Twin',
        endpoint_url: 'http://127.0.0.1:9/x',
        hmac_secret: 'twin-secret-0123456789',
      });
      const body = { orders: [{ reference: 'ORNOSUCHORDR', status: 'shipped' }] };
      // each time read at its request: on a loaded machine a second may pass between two of them
      const now = () => Math.floor(Date.now() / 1000);
      expect((await postCallback(web.url, 'replay', company.id, SECRET, body)).status).to.equal(422); // accepted, unknown order
      expect((await postCallback(web.url, 'replay', company.id, SECRET, body, now() - 301)).status).to.equal(401);
      expect((await postCallback(web.url, 'replay', company.id, SECRET, body, now() + 301)).status).to.equal(401);
      expect((await postCallback(web.url, 'other-code', company.id, SECRET, body)).status).to.equal(401);
      // Same code in another account: the id names one company, whose own secret must sign ...
      expect((await postCallback(web.url, 'replay', twin.id, SECRET, body)).status).to.equal(401);
      // ... and which answers for its own account's orders only: account A's real order is unknown to it.
      const [mine] = (await getCtx().services.orders.createMany(acc.seller.actor, { orders: [order(acc)] })).references;
      // pushed to A's own company, so a callback moving it to shipped is legal for that company
      await getCtx().models.Order.update(
        { status: 'pushed', push_state: 'sent', shipping_company_id: company.id },
        { where: { reference: mine } },
      );
      const says = { orders: [{ reference: mine, status: 'shipped' }] };
      expect((await postCallback(web.url, 'replay', twin.id, 'twin-secret-0123456789', says)).status).to.equal(422);
      expect((await getCtx().models.Order.findOne({ where: { reference: mine } }))!.status).to.equal('pushed');
      expect((await postCallback(web.url, 'replay', company.id, SECRET, says)).status).to.equal(200);
      expect((await getCtx().models.Order.findOne({ where: { reference: mine } }))!.status).to.equal('shipped');
      const raw = JSON.stringify(body);
      const unsigned = await fetch(`${web.url}/api/web/1.0/shipping/replay/callback`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-timestamp': String(now),
          'x-signature': signBody(SECRET, `${now}.${raw}`),
        },
        body: raw,
      });
      expect(unsigned.status).to.equal(401);
      const big = await postCallback(
        web.url,
        'replay',
        company.id,
        SECRET,
        JSON.stringify({ orders: [], pad: 'x'.repeat(300 * 1024) }),
      );
      expect(big.status).to.equal(413);
    });

    it('limits callbacks per client address with a budget of their own', async () => {
      const ctx = getCtx();
      const limited = await startTestServer({
        ...ctx,
        config: { ...ctx.config, callbackRatePerMinute: 3, redisUrl: null },
      });
      try {
        const statuses = [];
        for (let i = 0; i < 4; i++)
          statuses.push((await postCallback(limited.url, 'nobody', 1, SECRET, { orders: [] })).status);
        expect(statuses).to.deep.equal([401, 401, 401, 429]);
        // The REST budget is untouched.
        expect((await fetch(`${limited.url}/api/web/1.0/leads`)).status).to.equal(401);
      } finally {
        await limited.close();
      }
    });
  });
});
const orderOf = (ref: string) => getCtx().models.Order.findOne({ where: { reference: ref } });
