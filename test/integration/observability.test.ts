import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { SAFE_REQUEST_ID } from '../../http/observe.js';
import { exited, freshDatabase, localCarrier, randomPort, runMain, sellerToken, waitFor } from '../processes.js';
import { restClient } from '../rest-client.js';
import { createMetrics } from '../../src/metrics.js';
import { getCtx } from '../hooks.js';
import { startTestServer } from '../helpers.js';
import { login } from '../session.js';

/** The value of one series in a Prometheus text page, or null when it is not there. */
function sample(page: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of page.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(/,(?=\w+=")/);
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return null;
}

describe('observability: /metrics, access lines and request ids', () => {
  it('does not serve /metrics on the main port without METRICS_TOKEN', async () => {
    const web = await startTestServer();
    try {
      const res = await fetch(`${web.url}/metrics`);
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ message: 'Not found.' });
    } finally {
      await web.close();
    }
  });

  it('reads the queue depth per priority from the job store: due jobs wait, locked ones run', async () => {
    const ctx = getCtx();
    const name = `test-depth-${Date.now()}`;
    const urgent = async () => (await ctx.jobs.queueDepth()).find((d) => d.priority === 'URGENT')!;
    const before = await urgent();
    try {
      for (let i = 0; i < 3; i++) await ctx.queue.enqueue(name, { i }, { priority: 'URGENT' });
      await ctx.db.sequelize.query(
        `UPDATE agenda_jobs SET locked_at = now() WHERE id = (SELECT id FROM agenda_jobs WHERE name = $1 LIMIT 1)`,
        { bind: [name] },
      );
      const after = await urgent();
      expect(after.waiting - before.waiting).to.equal(2);
      expect(after.running - before.running).to.equal(1);
    } finally {
      await ctx.db.sequelize.query('DELETE FROM agenda_jobs WHERE name = $1', { bind: [name] });
    }
  });

  it('serves the page within 2.5 s when the job store does not answer, without the queue series', async function () {
    this.timeout(10_000);
    const metrics = createMetrics();
    // a job store that never answers, given up after 200 ms here (2 s in the service): the test does not wait out 2 s
    metrics.watch({ sequelize: getCtx().db.sequelize, queueDepth: () => new Promise(() => {}), storeReadMs: 200 });
    const started = Date.now();
    const { body } = await metrics.render();
    expect(Date.now() - started).to.be.below(2500);
    expect(body).to.include('leadflow_db_pool_connections');
    expect(sample(body, 'leadflow_job_queue_depth', { priority: 'URGENT', state: 'waiting' })).to.equal(null);
  });

  it("counts requests, jobs, queue, transfer rows, pool, refusals and carrier pushes behind the operator token; one request's access and service lines share its id", async function () {
    this.timeout(120_000);
    const db = await freshDatabase('observability');
    const carrier = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ tracking_number: `TRK-${JSON.parse(body).reference}` })),
      );
    });
    await new Promise<void>((r) => carrier.listen(0, '127.0.0.1', r));
    const metricsToken = 'metrics-token-0123456789';
    const env = {
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '12',
      METRICS_TOKEN: metricsToken,
      LOG_LEVEL: 'info',
    };
    const { token, accountId, password } = await sellerToken(
      env,
      'CREATE LEADS,VIEW LEADS,CREATE ORDERS,VIEW ORDERS,UPDATE ORDERS',
    );
    await localCarrier(env, accountId, `http://127.0.0.1:${(carrier.address() as net.AddressInfo).port}/orders`);
    const port = randomPort();
    const metricsPort = randomPort();
    const app = runMain({ ...env, PORT: String(port), METRICS_PORT: String(metricsPort) });
    const base = `http://127.0.0.1:${port}`;
    try {
      expect(
        await waitFor(async () => app.output.text.includes('LeadFlow listening'), 60_000),
        app.output.text,
      ).to.equal(true);
      const call = restClient(base, token);
      const phone = '+212600990001';
      const created = await call(
        'POST',
        '/leads',
        { leads: [{ phone, full_name: 'Metric Buyer', products: [{ sku: 'SERUM-01', quantity: 1, price: 199 }] }] },
        { 'x-request-id': 'obs-lead-create.1' },
      );
      expect(created.status).to.equal(201);
      expect(created.headers.get('x-request-id')).to.equal('obs-lead-create.1');
      // an unsafe id is not echoed (nor logged): a new one replaces it
      for (const bad of ['a'.repeat(200), '<script>', 'x y', '../../etc']) {
        const res = await call('GET', '/leads', undefined, { 'x-request-id': bad });
        expect(res.headers.get('x-request-id'), bad).to.match(/^[0-9a-f-]{36}$/);
      }

      const orders = (
        await call('POST', '/orders', {
          orders: [
            {
              phone: '+212600990002',
              full_name: 'Order Buyer',
              city: 'Fes',
              address: '1 Rue',
              products: [{ sku: 'SERUM-01', quantity: 1, price: 199 }],
            },
          ],
        })
      ).body;
      expect(
        (await call('POST', '/orders/push', { references: orders.references, shipping_company: 'local' })).status,
      ).to.equal(202);
      const seller = await login(base, 'seller@demo.test', password);
      const form = new FormData();
      form.append(
        'file',
        new Blob(
          [
            `phone,full_name,sku,quantity,price\n+212600990003,Import One,SERUM-01,1,199\n+212600990004,Import Two,NO-SUCH-SKU,1,199\n`,
          ],
          { type: 'text/csv' },
        ),
        'leads.csv',
      );
      expect(
        (await seller.fetch('/leads/import', { method: 'POST', body: form, headers: { accept: 'application/json' } }))
          .status,
      ).to.equal(202);
      expect((await seller.json('POST', '/leads/export', { file_extension: 'csv' })).status).to.equal(202);
      let limited = 0;
      for (let i = 0; i < 14; i++) if ((await call('GET', '/leads')).status === 429) limited++;
      expect(limited).to.be.above(0);

      // no token, a wrong one, or a token of the REST API: refused; the operator's token: the page
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Bearer ${token}`, metricsToken]) {
        const res = await fetch(`${base}/metrics`, { headers: authorization ? { authorization } : {} });
        expect(res.status, String(authorization)).to.equal(401);
      }
      const scrape = async () =>
        (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
      expect(
        await waitFor(async () => {
          const page = await scrape();
          return (
            sample(page, 'leadflow_carrier_pushes_total', { outcome: 'sent' }) === 1 &&
            sample(page, 'leadflow_transfer_rows_total', { kind: 'export', outcome: 'exported' }) !== null &&
            sample(page, 'leadflow_transfer_rows_total', { kind: 'import', outcome: 'imported' }) === 1
          );
        }, 30_000),
        (await scrape())
          .split('\n')
          .filter((l) => /^leadflow_(carrier|transfer|job_runs)/.test(l))
          .join('\n'),
      ).to.equal(true);
      const page = await scrape();
      expect(
        sample(page, 'leadflow_http_requests_total', { method: 'POST', route: '/api/web/1.0/leads', status: '201' }),
      ).to.equal(1);
      expect(
        sample(page, 'leadflow_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/api/web/1.0/leads',
          status: '201',
        }),
      ).to.equal(1);
      expect(
        sample(page, 'leadflow_http_requests_total', { method: 'GET', route: '/api/web/1.0/leads', status: '200' }),
      ).to.be.at.least(4);
      expect(
        sample(page, 'leadflow_job_runs_total', { job: 'push-order', priority: 'URGENT', outcome: 'succeeded' }),
      ).to.equal(1);
      for (const job of ['import-leads', 'export-leads'])
        expect(
          sample(page, 'leadflow_job_runs_total', { job, priority: 'IMPORTANT', outcome: 'succeeded' }),
          job,
        ).to.equal(1);
      expect(sample(page, 'leadflow_job_duration_seconds_count', { priority: 'URGENT' })).to.equal(1);
      for (const priority of ['URGENT', 'IMPORTANT', 'NORMAL']) {
        expect(sample(page, 'leadflow_job_queue_depth', { priority, state: 'waiting' }), priority).to.equal(0);
      }
      expect(sample(page, 'leadflow_transfer_rows_total', { kind: 'import', outcome: 'refused' })).to.equal(1);
      expect(sample(page, 'leadflow_transfer_rows_total', { kind: 'export', outcome: 'exported' })).to.be.at.least(1);
      expect(sample(page, 'leadflow_db_pool_connections', { state: 'idle' })).to.be.a('number');
      expect(sample(page, 'leadflow_rate_limit_refusals_total', { limiter: 'rest' })).to.equal(limited);
      expect(sample(page, 'leadflow_process_resident_memory_bytes', {})).to.be.above(0);
      expect(page, 'no route values, tokens or customer data in labels').not.to.match(/\+2126|SERUM|Metric Buyer|\|/);

      // the port of its own: the same page (same token rule), and nothing else
      const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      expect(own.status).to.equal(200);
      expect(await own.text()).to.include('leadflow_job_runs_total');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).to.equal(401);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/api/web/1.0/leads`)).status).to.equal(404);

      // logs: the access line and the service's line of the lead creation carry its id; no token or phone anywhere
      const records = app.output.text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      const ofCreate = records.filter((r) => r.req_id === 'obs-lead-create.1');
      expect(ofCreate.map((r) => r.msg).sort()).to.deep.equal(['leads created', 'request']);
      expect(ofCreate.find((r) => r.msg === 'request')).to.include({
        method: 'POST',
        route: '/api/web/1.0/leads',
        status: 201,
        account_id: accountId,
      });
      expect(ofCreate.find((r) => r.msg === 'request').duration_ms).to.be.a('number');
      expect(ofCreate.find((r) => r.msg === 'leads created')).to.include({ account_id: accountId, created: 1 });
      expect(records.filter((r) => r.msg === 'request').every((r) => SAFE_REQUEST_ID.test(r.req_id))).to.equal(true);
      expect(app.output.text).not.to.include(token.split('|')[1]);
      expect(app.output.text).not.to.include(phone);
      expect(app.output.text).not.to.include(metricsToken);
    } finally {
      app.kill('SIGTERM');
      await exited(app);
      carrier.close();
      await db.drop();
    }
  });
});
