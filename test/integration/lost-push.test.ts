import { expect } from 'chai';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { serveLocal } from '../helpers.js';
import {
  exited,
  freshDatabase,
  localCarrier,
  randomPort,
  runMain,
  sellerToken,
  waitFor,
  expectReady,
  buyerOrders,
} from '../processes.js';
import { restClient } from '../rest-client.js';

/**
 * A push cannot be lost between the order's commit and its job: the process that queued it is killed right after the
 * commit (FAULT_INJECTION, a crash point only tests may switch on), and a fresh worker still delivers it, once.
 */
describe('no lost push', () => {
  it('refuses the crash point outside tests', () => {
    const env = { SESSION_SECRET: 'x'.repeat(32), DATA_DIR: './data/test', FAULT_INJECTION: 'exit-after-push-commit' };
    for (const NODE_ENV of ['production', 'development'])
      expect(() => loadConfig({ ...env, NODE_ENV })).to.throw(/FAULT_INJECTION: only tests/);
    expect(loadConfig({ ...env, NODE_ENV: 'test' }).faultInjection).to.equal('exit-after-push-commit');
  });

  it('When the process dies right after a push commits, Then a fresh worker delivers every order to the carrier exactly once', async function () {
    this.timeout(180_000);
    const calls: { reference: string; key: string }[] = [];
    const carrier = await serveLocal((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { reference } = JSON.parse(body);
        calls.push({ reference, key: String(req.headers['x-idempotency-key']) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tracking_number: 'T-1' }));
      });
    });
    const db = await freshDatabase('lost_push');
    const env = { DATABASE_URL: db.url, HOST: '127.0.0.1' };
    const client = new pg.Client({ connectionString: db.url });
    let web: ReturnType<typeof runMain> | null = null;
    let worker: ReturnType<typeof runMain> | null = null;
    try {
      const { token, accountId } = await sellerToken(env, 'CREATE ORDERS,VIEW ORDERS,UPDATE ORDERS');
      await localCarrier(env, accountId, carrier.url('/orders'));
      const port = randomPort();
      const crashing = { ...env, PORT: String(port), NODE_ENV: 'test', FAULT_INJECTION: 'exit-after-push-commit' };
      web = runMain(crashing, ['--role', 'web']);
      const base = `http://127.0.0.1:${port}`;
      await expectReady(base, web);
      const call = restClient(base, token);
      const orders = buyerOrders(3, 1000);
      const created = await call('POST', '/orders', { orders });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const references: string[] = created.body.references;
      const answer = await call('POST', '/orders/push', { references, shipping_company: 'local' }).catch(
        (err: Error) => err,
      );
      expect(answer, 'the process died before answering').to.be.instanceOf(Error);
      await exited(web);
      expect(web.signalCode, web.output.text).to.equal('SIGKILL');

      await client.connect();
      const states = await client.query(`SELECT push_state FROM orders WHERE reference = ANY($1)`, [references]);
      expect(states.rows.map((r) => r.push_state)).to.deep.equal(['queued', 'queued', 'queued']);
      expect(calls, 'nothing was sent before the crash').to.deep.equal([]);

      worker = runMain(env, ['--role', 'worker']);
      const pushed = async () =>
        (
          await client.query(`SELECT count(*)::int AS n FROM orders WHERE reference = ANY($1) AND status = 'pushed'`, [
            references,
          ])
        ).rows[0].n as number;
      expect(await waitFor(async () => (await pushed()) === 3, 60_000), worker.output.text).to.equal(true);
      // only a push-order job calls the carrier: once every one has run for good (finished, not due again, not
      // locked), a second delivery can no longer come
      const settled = async () =>
        (
          await client.query(
            `SELECT count(*)::int AS n,
                    count(*) FILTER (WHERE last_finished_at IS NOT NULL AND next_run_at IS NULL
                                       AND locked_at IS NULL)::int AS done
               FROM agenda_jobs WHERE name = 'push-order'`,
          )
        ).rows[0] as { n: number; done: number };
      expect(
        await waitFor(async () => {
          const { n, done } = await settled();
          return n >= 3 && done === n;
        }, 60_000),
        `push jobs ${JSON.stringify(await settled())}`,
      ).to.equal(true);
      expect(calls.map((c) => c.reference).sort()).to.deep.equal([...references].sort());
      expect(calls.every((c) => c.key === c.reference)).to.equal(true);
      worker.kill('SIGTERM');
      expect(await exited(worker)).to.equal(0);
    } finally {
      for (const p of [web, worker]) if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      await client.end().catch(() => {});
      await db.drop();
      await carrier.close();
    }
  });
});
