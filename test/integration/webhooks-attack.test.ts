import crypto from 'node:crypto';
import dns from 'node:dns';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { jobDefinitions } from '../../jobs/index.js';
import type { AppContext } from '../../src/app-context.js';
import { createWebhookService } from '../../src/webhooks/webhook.service.js';
import { claimDue, recordAttempt } from '../../src/webhooks/webhook.repository.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { serveLocal, useTestServer } from '../helpers.js';
import { getCtx, testConfig } from '../hooks.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';
import { useReceiver } from '../webhook-receiver.js';

/**
 * Issue 21's webhooks under attack (an attacker, an integrator, an operator): each finding is a test here, next to
 * what already held.
 */
const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;
const EVENTS = ['lead.created', 'lead.status_changed'];

async function leads(ctx: AppContext, acc: TestAccount, n: number, name = 'Customer'): Promise<string[]> {
  const items = Array.from({ length: n }, (_, i) => ({
    phone: phone(),
    full_name: `${name} ${i}`,
    products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
  }));
  return (await ctx.services.leads.createMany(acc.seller.actor, { leads: items })).references;
}

const rows = (sql: string, bind: unknown[] = []) =>
  getCtx().db.sequelize.query<Record<string, any>>(sql, { bind, type: QueryTypes.SELECT });
const logOf = (endpointId: number) =>
  rows('SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId]);
const dueNow = (endpointId: number) =>
  rows(`UPDATE webhook_deliveries SET next_try_at = now() WHERE endpoint_id = $1 AND state = 'pending'`, [endpointId]);

async function deliverAll(svc: { deliverDue: () => Promise<number> }): Promise<void> {
  while ((await svc.deliverDue()) > 0);
}

/** The service with config changes (a strict SSRF check, a short timeout, fewer lanes). */
const serviceWith = (ctx: AppContext, config: Partial<AppContext['config']>) =>
  createWebhookService({ ...ctx, config: { ...ctx.config, ...config } });

describe('webhooks under attack', function () {
  this.timeout(60_000);
  const web = useTestServer();
  const receiver = useReceiver();

  describe('SSRF (WEBHOOK_ALLOW_PRIVATE_URLS off)', () => {
    it('When a URL names loopback in any spelling, Then create and update refuse it', async () => {
      const ctx = getCtx();
      const strict = serviceWith(ctx, { webhookAllowPrivateUrls: false });
      const acc = await makeAccount(ctx);
      for (const url of [
        'http://localhost:8080/x',
        'http://[::ffff:127.0.0.1]/x',
        'http://[::ffff:7f00:1]:6379/',
        'http://2130706433/x',
        'http://0x7f000001/x',
        'http://127.1/x',
        'http://0177.0.0.1/x',
        'http://0.0.0.0:5432/',
        'http://[::]/x',
        'http://[64:ff9b::7f00:1]/x',
        'http://100.64.0.1/x',
        'http://user:pw@93.184.216.34/x',
      ]) {
        const err = await strict.create(acc.seller.actor, { url, events: EVENTS }).catch((e) => e);
        expect(err?.errors, url).to.have.keys('url');
      }
      const { endpoint } = await strict.create(acc.seller.actor, { url: 'https://93.184.216.34/x', events: EVENTS });
      const err = await strict.update(acc.seller.actor, endpoint.id, { url: 'http://127.0.0.1.:9/' }).catch((e) => e);
      expect(err?.errors).to.have.keys('url');
      await strict.remove(acc.seller.actor, endpoint.id);
    });

    it('When a name resolves public at save and to 127.0.0.1 at send (DNS rebinding), Then nothing reaches inside and the log names no address', async () => {
      const ctx = getCtx();
      const strict = serviceWith(ctx, { webhookAllowPrivateUrls: false });
      const acc = await makeAccount(ctx);
      const host = `hooks-${crypto.randomUUID().slice(0, 8)}.rebind.test`;
      const { lookup } = dns;
      const promisesLookup = dns.promises.lookup;
      const answer = (name: string, inside: boolean) =>
        name === host ? [{ address: inside ? '127.0.0.1' : '93.184.216.34', family: 4 }] : null;
      dns.promises.lookup = (async (name: string, o: any) => answer(name, false) ?? promisesLookup(name, o)) as never;
      dns.lookup = ((name: string, o: any, cb: any) => {
        const a = answer(name, true);
        if (!a) return lookup(name, o, cb);
        process.nextTick(() => (o?.all ? cb(null, a) : cb(null, a[0].address, 4)));
      }) as never;
      try {
        const port = new URL(receiver.url()).port;
        const { endpoint } = await strict.create(acc.seller.actor, {
          url: `http://${host}:${port}/in`,
          events: EVENTS,
        });
        await leads(ctx, acc, 1);
        await strict.deliverDue();
        expect(receiver.at('/in')).to.have.length(0);
        const [d] = await logOf(endpoint.id);
        expect(d).to.include({ state: 'pending', attempts: 1, response_code: null });
        expect(d.last_error).to.include('not a public address').and.not.include('127.0.0.1');
        await strict.remove(acc.seller.actor, endpoint.id);
      } finally {
        dns.lookup = lookup;
        dns.promises.lookup = promisesLookup;
      }
    });

    it('When a receiver redirects, Then the redirect is not followed and the delivery is retried', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const hits: string[] = [];
      const local = await serveLocal((req, res) => {
        hits.push(req.url!);
        res.writeHead(307, { location: '/elsewhere' }).end();
      });
      const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
        url: `http://127.0.0.1:${local.port}/hook`,
        events: EVENTS,
      });
      await leads(ctx, acc, 1);
      await ctx.services.webhooks.deliverDue();
      await local.close();
      expect(hits).to.deep.equal(['/hook']);
      const [d] = await logOf(endpoint.id);
      expect(d).to.include({ state: 'pending', response_code: 307, last_error: 'HTTP 307' });
      await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
    });
  });

  it('When receivers hang, answer 5 MB, close the socket or answer 404/500, Then each attempt ends in time and the log keeps 200 characters', async () => {
    const ctx = getCtx();
    const svc = serviceWith(ctx, { webhookTimeoutMs: 400 });
    const acc = await makeAccount(ctx);
    const big = Buffer.alloc(5 << 20, 'z');
    const local = await serveLocal((req, res) => {
      req.resume();
      if (req.url === '/hang') return;
      if (req.url === '/close') return req.socket.destroy();
      if (req.url === '/huge') return res.writeHead(200).end(big);
      res.writeHead(req.url === '/e404' ? 404 : 500).end(big);
    });
    const ids: Record<string, number> = {};
    for (const p of ['/hang', '/close', '/huge', '/e404', '/e500']) {
      const url = `http://127.0.0.1:${local.port}${p}`;
      ids[p] = (await svc.create(acc.seller.actor, { url, events: EVENTS })).endpoint.id;
    }
    await leads(ctx, acc, 1);
    const started = Date.now();
    await svc.deliverDue();
    expect(Date.now() - started).to.be.below(3000);
    const [hang, close, huge, e404, e500] = await Promise.all(
      Object.values(ids).map(async (id) => (await logOf(id))[0]),
    );
    expect(hang).to.include({ state: 'pending', last_error: 'timed out', response_code: null });
    expect(hang.duration_ms).to.be.within(350, 2000);
    expect(close).to.include({ state: 'pending', last_error: 'socket hang up' });
    expect(huge).to.include({ state: 'delivered', response_code: 200 });
    expect(e404).to.include({ state: 'pending', response_code: 404 });
    expect(e500.last_error).to.equal(`HTTP 500: ${'z'.repeat(200)}`);
    for (const id of Object.values(ids)) await svc.remove(acc.seller.actor, id);
    local.server.closeAllConnections();
    await local.close();
  });

  it('When a payload holds non-ASCII text, Then the signature covers exactly the bytes received', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint, secret } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/bytes'),
      events: ['lead.created'],
    });
    await leads(ctx, acc, 1, 'محمد "é" 😀 \u2028 ');
    await deliverAll(ctx.services.webhooks);
    const [r] = receiver.at('/bytes');
    expect(r.body.data.lead.full_name).to.include('محمد "é" 😀');
    expect(Number(r.headers['content-length'])).to.equal(r.raw.length);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = crypto
      .createHmac('sha256', key)
      .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.`);
    expect(r.headers['webhook-signature']).to.equal(`v1,${mac.update(r.raw).digest('base64')}`);
    await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
  });

  it('When an endpoint is created, rotated, fails and is disabled, Then its secret is in no answer, log line, error or document but the two', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const lines: string[] = [];
    const logger = Object.fromEntries(
      ['info', 'warn', 'error', 'debug', 'trace', 'fatal'].map((l) => [
        l,
        (...a: unknown[]) => lines.push(JSON.stringify(a)),
      ]),
    );
    const svc = createWebhookService({ ...ctx, logger: logger as never });
    const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
    const created = await call('POST', '/webhooks', { url: receiver.url('/secret'), events: EVENTS });
    const id = created.body.data.id;
    const rotated = (await svc.rotateSecret(acc.seller.actor, id)).secret;
    receiver.answerWith((r) => (r.path === '/secret' ? 500 : 200));
    await leads(ctx, acc, 1);
    await svc.deliverDue();
    await rows(`UPDATE webhook_endpoints SET failing_since = now() - interval '2 days' WHERE id = $1`, [id]);
    await dueNow(id);
    await svc.deliverDue();
    receiver.answerWith(() => 200);
    const seen = [
      ...lines,
      JSON.stringify((await call('GET', '/webhooks')).body),
      JSON.stringify((await call('GET', `/webhooks/${id}`)).body),
      JSON.stringify((await call('PUT', `/webhooks/${id}`, { secret: 'x' })).body),
      JSON.stringify((await call('GET', '/webhooks/deliveries')).body),
      JSON.stringify(await logOf(id)),
      await (await fetch(`${web.url}/api/web/1.0/openapi.json`)).text(),
    ];
    expect(lines.join()).to.include('webhook endpoint disabled');
    for (const text of seen) expect(text).to.not.include(created.body.secret).and.not.include(rotated);
  });

  it('When a seller names another account in account_id (REST, dashboard, panel), Then the endpoint stays in its account', async () => {
    const ctx = getCtx();
    const [acc, other] = [await makeAccount(ctx), await makeAccount(ctx)];
    const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
    const id = (await call('POST', '/webhooks', { url: receiver.url('/mine'), events: EVENTS })).body.data.id;
    expect(
      (await call('POST', '/webhooks', { url: receiver.url('/x'), events: EVENTS, account_id: other.id })).status,
    ).to.equal(422);
    expect((await call('PUT', `/webhooks/${id}`, { account_id: other.id })).status).to.equal(422);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const dash = await seller.fetch(`/webhooks/${id}`, { method: 'PATCH', json: { account_id: other.id } });
    expect(dash.status).to.equal(422);
    const edit = { url: receiver.url('/moved'), account_id: String(other.id) };
    await seller.fetch(`/admin/api/resources/webhook_endpoints/records/${id}/edit`, {
      method: 'POST',
      headers: { origin: web.url },
      json: edit,
    });
    const stored = await ctx.models.WebhookEndpoint.findByPk(id);
    expect(stored!.account_id).to.equal(acc.id);
    expect(await ctx.models.WebhookEndpoint.count({ where: { account_id: other.id } })).to.equal(0);
  });

  it('When a delivery is resent while pending, of a disabled endpoint or of a deleted one, Then 409, a copy that waits, 404', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
    const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/re'),
      events: EVENTS,
    });
    await leads(ctx, acc, 1);
    // the delivery job fans events out to endpoints (issue 29): the log shows them from then on
    await ctx.services.webhooks.fanOut();
    const [pending] = await logOf(endpoint.id);
    const refused = await call('POST', `/webhooks/deliveries/${pending.id}/resend`);
    expect(refused.status).to.equal(409);
    expect(await logOf(endpoint.id)).to.have.length(1);

    await deliverAll(ctx.services.webhooks);
    await ctx.services.webhooks.update(acc.seller.actor, endpoint.id, { active: false });
    expect((await call('POST', `/webhooks/deliveries/${pending.id}/resend`)).status).to.equal(202);
    await deliverAll(ctx.services.webhooks);
    expect(receiver.at('/re')).to.have.length(1);
    await ctx.services.webhooks.update(acc.seller.actor, endpoint.id, { active: true });
    await deliverAll(ctx.services.webhooks);
    expect(receiver.at('/re')).to.have.length(2);

    await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
    expect((await call('POST', `/webhooks/deliveries/${pending.id}/resend`)).status).to.equal(404);
  });

  describe('workers', () => {
    it('When a worker outlives its hold and another delivered meanwhile, Then its late failure does not undo the delivery', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
        url: receiver.url('/late'),
        events: EVENTS,
      });
      await leads(ctx, acc, 1);
      await ctx.services.webhooks.fanOut();
      const { sequelize } = ctx.db;
      let slow = await claimDue(sequelize, 60_000, 4);
      while (slow && slow.endpoint_id !== endpoint.id) slow = await claimDue(sequelize, 60_000, 4);
      await rows(`UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE id = $1`, [slow!.id]);
      await deliverAll(ctx.services.webhooks); // the killed or stalled worker's delivery is taken again
      const fail = { ok: false, status: null, durationMs: 30_000, error: 'timed out', nextTryAt: new Date() };
      await recordAttempt(sequelize, slow!, fail);
      const [d] = await logOf(endpoint.id);
      expect(d).to.include({ state: 'delivered', attempts: 1, response_code: 200 });
      const got = receiver.at('/late');
      expect(got.map((r) => r.headers['webhook-id'])).to.deep.equal([d.event_id]);
      await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
    });

    it('When the database fails mid-run, Then the run fails only after every lane stopped, and the delivery goes again with its id', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      receiver.answerWith(async () => new Promise((r) => setTimeout(() => r(200), 150)));
      const ids: number[] = [];
      for (const p of ['/db1', '/db2', '/db3'])
        ids.push(
          (await ctx.services.webhooks.create(acc.seller.actor, { url: receiver.url(p), events: EVENTS })).endpoint.id,
        );
      await leads(ctx, acc, 2);
      const real = ctx.db.sequelize;
      let broken = false;
      const sequelize = new Proxy(real, {
        get: (t, k) =>
          k === 'query'
            ? (sql: string, o: unknown) => {
                if (!broken && sql.includes('attempts = attempts + 1')) {
                  broken = true;
                  return Promise.reject(new Error('Connection terminated unexpectedly'));
                }
                return t.query(sql, o as never);
              }
            : Reflect.get(t, k),
      });
      const core = { ...ctx, config: { ...ctx.config, webhookConcurrency: 6 }, db: { ...ctx.db, sequelize } };
      const err = await createWebhookService(core as never)
        .deliverDue()
        .catch((e: Error) => e);
      expect(err).to.have.property('message', 'Connection terminated unexpectedly');
      const all = (await Promise.all(ids.map(logOf))).flat();
      const held = all.filter((d) => d.locked_until && new Date(d.locked_until) > new Date());
      expect(held, 'lanes still sending after the run ended').to.have.length(1);
      await rows(`UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE id = $1`, [
        held[0].id,
      ]);
      receiver.answerWith(() => 200);
      await deliverAll(ctx.services.webhooks);
      const again = receiver.received.filter((r) => r.body.id === held[0].event_id);
      expect(again).to.have.length(2);
      expect((await Promise.all(ids.map(logOf))).flat().every((d) => d.state === 'delivered')).to.equal(true);
      for (const id of ids) await ctx.services.webhooks.remove(acc.seller.actor, id);
    });

    it('When one receiver hangs on many deliveries, Then another account is served at once, not after them', async () => {
      const ctx = getCtx();
      const svc = serviceWith(ctx, { webhookTimeoutMs: 500, webhookConcurrency: 4 });
      const [slow, fast] = [await makeAccount(ctx), await makeAccount(ctx)];
      const tarpit = await serveLocal((req) => req.resume());
      const { endpoint } = await svc.create(slow.seller.actor, {
        url: `http://127.0.0.1:${tarpit.port}/`,
        events: EVENTS,
      });
      await leads(ctx, slow, 12);
      await svc.create(fast.seller.actor, { url: receiver.url('/fast'), events: EVENTS });
      await leads(ctx, fast, 1);
      const started = Date.now();
      const run = svc.deliverDue();
      while (!receiver.at('/fast').length && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 10));
      expect(Date.now() - started).to.be.below(450);
      // checked: the tarpit goes (its hanging requests dropped, new ones refused), so the run ends without waiting out
      // a timeout for each of the slow account's deliveries still to send
      const closed = tarpit.close();
      await run;
      await svc.remove(slow.seller.actor, endpoint.id);
      await closed;
    });

    it('When 1,000 leads are created and their statuses changed in bulk, Then 2,000 deliveries, each sent once and in order by two workers', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
        url: receiver.url('/bulk'),
        events: EVENTS,
      });
      const refs = await leads(ctx, acc, 1000);
      const started = Date.now();
      await ctx.services.leads.updateStatuses(acc.seller.actor, {
        leads: refs.map((reference) => ({ reference, status: 'no_answer' })),
      });
      expect(Date.now() - started, 'bulk status change').to.be.below(5000);
      // one event per change, fanned out by the delivery job (issue 29)
      expect(await rows('SELECT id FROM webhook_events WHERE account_id = $1', [acc.id])).to.have.length(2000);
      await ctx.services.webhooks.fanOut();
      expect(await logOf(endpoint.id)).to.have.length(2000);
      const second = createWebhookService(ctx);
      await Promise.all([deliverAll(ctx.services.webhooks), deliverAll(second)]);
      const got = receiver.at('/bulk');
      expect(new Set(got.map((r) => r.body.id)).size).to.equal(2000);
      expect(got).to.have.length(2000);
      const firstSeen = new Map<string, string>();
      for (const r of got)
        if (!firstSeen.has(r.body.data.lead.reference)) firstSeen.set(r.body.data.lead.reference, r.body.event);
      expect([...firstSeen.values()].every((e) => e === 'lead.created')).to.equal(true);
      await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
    });
  });

  it('When a lead is deleted while its deliveries wait, Then they are still sent as recorded', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/gone'),
      events: EVENTS,
    });
    const [ref] = await leads(ctx, acc, 1);
    await ctx.services.leads.deleteMany(acc.seller.actor, { references: [ref] });
    await deliverAll(ctx.services.webhooks);
    expect(receiver.at('/gone').map((r) => r.body.data.lead.reference)).to.deep.equal([ref]);
    await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
  });

  it('When many deliveries of an endpoint fail at once past the limit, Then it is disabled and each seller mailed once', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const url = receiver.url(`/down-${crypto.randomUUID()}`);
    const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, { url, events: EVENTS });
    receiver.answerWith((r) => (r.path.startsWith('/down-') ? 503 : 200));
    await leads(ctx, acc, 8);
    await rows(`UPDATE webhook_endpoints SET failing_since = now() - interval '25 hours' WHERE id = $1`, [endpoint.id]);
    await Promise.all([ctx.services.webhooks.deliverDue(), createWebhookService(ctx).deliverDue()]);
    receiver.answerWith(() => 200);
    expect(await ctx.models.WebhookEndpoint.findByPk(endpoint.id)).to.have.property('active', false);
    const outbox = path.join(ctx.config.dataDir, 'outbox');
    const mails = fs.readdirSync(outbox).filter((f) => fs.readFileSync(path.join(outbox, f), 'utf8').includes(url));
    expect(mails).to.have.length(1);
  });

  it('When deliveries are older than WEBHOOK_LOG_DAYS, Then the daily clean-up removes the ended ones and keeps pending ones', async () => {
    const ctx = getCtx();
    expect(ctx.config.webhookLogDays).to.equal(30);
    expect(testConfig({ WEBHOOK_LOG_DAYS: '7' }).webhookLogDays).to.equal(7);
    expect(jobDefinitions.find((j) => j.name === 'webhooks-cleanup')).to.include({ every: '1 day' });
    const acc = await makeAccount(ctx);
    const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/old'),
      events: EVENTS,
    });
    await leads(ctx, acc, 5);
    await ctx.services.webhooks.fanOut();
    const log = await logOf(endpoint.id);
    const set = (id: number, state: string, days: number) =>
      rows(
        `UPDATE webhook_deliveries SET state = $2::text, created_at = now() - make_interval(days => $3::int),
                delivered_at = CASE WHEN $2::text = 'delivered' THEN now() - make_interval(days => $3::int) END
          WHERE id = $1`,
        [id, state, days],
      );
    await set(log[0].id, 'delivered', 31);
    await set(log[1].id, 'failed', 40);
    await set(log[2].id, 'pending', 90);
    await set(log[3].id, 'delivered', 29);
    await rows(`UPDATE webhook_deliveries SET resent_from = $1 WHERE id = $2`, [log[0].id, log[4].id]);
    expect(await ctx.services.webhooks.removeOldDeliveries()).to.be.at.least(2);
    const kept = await logOf(endpoint.id);
    expect(kept.map((d) => Number(d.id))).to.deep.equal([log[2].id, log[3].id, log[4].id].map(Number));
    expect(kept[2].resent_from).to.equal(null);
    await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
  });
});
