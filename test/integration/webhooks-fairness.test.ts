import crypto from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { createJobSystem, type JobSystem } from '../../jobs/agenda.js';
import { deliverWebhooksJob } from '../../jobs/webhooks.job.js';
import type { AppContext } from '../../src/app-context.js';
import { createWebhookService } from '../../src/webhooks/webhook.service.js';
import { POLL_MS } from '../../src/webhooks/webhook-slots.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { getCtx } from '../hooks.js';
import { restClient } from '../rest-client.js';
import { waitFor } from '../spawn.js';
import { startDeadReceiver, useReceiver } from '../webhook-receiver.js';

/**
 * Issue 29: one account's webhooks cannot slow the service down for the others. A change records one event whatever
 * the number of endpoints (the fan-out happens in the delivery job), and the job serves accounts in turn with a cap
 * of attempts in flight per account, so a dead or slow receiver delays another account's delivery by no more than
 * a poll.
 */
const EVENTS = ['lead.created', 'lead.status_changed'];
const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const leadItems = (acc: TestAccount, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    phone: phone(),
    full_name: `Customer ${i}`,
    products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
  }));

const leads = async (ctx: AppContext, acc: TestAccount, n: number) =>
  (await ctx.services.leads.createMany(acc.seller.actor, { leads: leadItems(acc, n) })).references;

const count = async (sql: string, bind: unknown[]) =>
  (await getCtx().db.sequelize.query<{ n: number }>(sql, { bind, type: QueryTypes.SELECT }))[0].n;
const deliveriesOf = (accountId: number) =>
  count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [accountId]);
const eventsOf = (accountId: number) =>
  count('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1', [accountId]);
const inFlightOf = (accountId: number) =>
  count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1 AND locked_until >= now()', [
    accountId,
  ]);

describe('webhooks: fan-out cost and fairness between accounts (issue 29)', function () {
  this.timeout(120_000);
  const web = useTestServer();
  const receiver = useReceiver();

  it('When a REST request creates 1,000 leads with 1 or 10 subscribed endpoints, Then it writes the same rows: 1,000 events and no delivery', async () => {
    const ctx = getCtx();
    const written: number[][] = [];
    for (const endpoints of [1, 10]) {
      const acc = await makeAccount(ctx);
      for (let i = 0; i < endpoints; i++)
        await ctx.services.webhooks.create(acc.seller.actor, { url: receiver.url(`/cost-${i}`), events: EVENTS });
      const call = restClient(web.url, await acc.token(['CREATE LEADS']));
      const res = await call('POST', '/leads', { leads: leadItems(acc, 1000) });
      expect(res.status, JSON.stringify(res.body).slice(0, 200)).to.equal(201);
      written.push([await eventsOf(acc.id), await deliveriesOf(acc.id)]);
      // the delivery job fans them out afterwards, once per endpoint
      await ctx.services.webhooks.fanOut();
      expect(await deliveriesOf(acc.id)).to.equal(1000 * endpoints);
      for (const e of (await ctx.services.webhooks.list(acc.seller.actor)).data)
        await ctx.services.webhooks.remove(acc.seller.actor, e.id);
    }
    expect(written).to.deep.equal([
      [1000, 0],
      [1000, 0],
    ]);
  });

  describe('with a worker running the delivery job', () => {
    let jobs: JobSystem;
    before(async () => {
      const ctx = getCtx();
      jobs = await createJobSystem(ctx.config, ctx.db.url, ctx.logger, ctx.metrics);
      await jobs.startWorker(ctx, [deliverWebhooksJob]);
    });
    after(async () => {
      // a delivery run still busy with X's receiver is handed back, not waited for
      await jobs.close({ graceMs: 300 });
      await getCtx().db.sequelize.query('DELETE FROM agenda_jobs WHERE name = $1', { bind: [deliverWebhooksJob.name] });
    });

    /** Account X's backlog on `xUrls` is being sent; answers how long account Y's one new lead took to arrive. */
    /**
     * Samples X's attempts in flight while a second worker delivers too; answers the most seen. The sampling ends once
     * the first worker has parked X's sends (a send older than PARK_MS, 1 s in src/webhooks/webhook-slots.ts, leaves
     * its slot free, and the run polls again every POLL_MS) and the second worker has made two whole runs since: a run
     * that took one of X's deliveries beyond the cap would still be sending it (the receiver never answers), in flight
     * for the sampling to see.
     */
    async function inFlightWithSecondWorker(accountId: number, xSince: number): Promise<number> {
      const other = createWebhookService(getCtx());
      const parkedAt = xSince + 1000 + 2 * POLL_MS;
      let stop = false;
      let runsAfterParked = 0;
      const second = (async () => {
        while (!stop) {
          const startedAt = Date.now();
          const sent = await other.deliverDue().catch(() => 0);
          if (startedAt >= parkedAt) runsAfterParked++;
          if (sent === 0) await sleep(100);
        }
      })();
      let most = 0;
      for (const end = Date.now() + 30_000; runsAfterParked < 2 && Date.now() < end; await sleep(20))
        most = Math.max(most, await inFlightOf(accountId));
      most = Math.max(most, await inFlightOf(accountId));
      stop = true;
      await second;
      expect(runsAfterParked, 'runs of the second worker sampled').to.be.at.least(2);
      return most;
    }

    async function latencyOfY(xUrls: string[], xLeads: number, xStarted: () => boolean, twoWorkers = false) {
      const ctx = getCtx();
      const [x, y] = [await makeAccount(ctx), await makeAccount(ctx)];
      for (const url of xUrls) await ctx.services.webhooks.create(x.seller.actor, { url, events: EVENTS });
      await leads(ctx, x, xLeads);
      expect(await waitFor(async () => xStarted(), 15_000), 'X is being served').to.equal(true);
      const xSince = Date.now();
      const path = `/y-${crypto.randomUUID()}`;
      await ctx.services.webhooks.create(y.seller.actor, { url: receiver.url(path), events: EVENTS });
      let maxInFlight = 0;
      // from the commit of Y's change (the lead's own creation is not the delivery's latency)
      const [ref] = await leads(ctx, y, 1);
      const started = Date.now();
      while (!receiver.at(path).length && Date.now() - started < 30_000) {
        maxInFlight = Math.max(maxInFlight, await inFlightOf(x.id));
        await sleep(20);
      }
      const latency = Date.now() - started;
      expect(receiver.at(path).map((r) => r.body.data.lead.reference)).to.deep.equal([ref]);
      if (twoWorkers) maxInFlight = Math.max(maxInFlight, await inFlightWithSecondWorker(x.id, xSince));
      for (const e of (await ctx.services.webhooks.list(x.seller.actor)).data)
        await ctx.services.webhooks.remove(x.seller.actor, e.id);
      return { latency, maxInFlight };
    }

    it('When X has two endpoints on a receiver that never answers and 40 leads queued, Then Y’s delivery arrives within 3 s and X holds at most WEBHOOK_ACCOUNT_IN_FLIGHT attempts, a second worker running too', async () => {
      const dead = await startDeadReceiver();
      try {
        const { latency, maxInFlight } = await latencyOfY(
          [dead.url('/dead-1'), dead.url('/dead-2')],
          40,
          () => dead.requests() >= 2,
          true,
        );
        expect(latency, 'Y waited').to.be.below(3000);
        expect(maxInFlight, 'X’s attempts in flight (both workers)').to.be.at.most(
          getCtx().config.webhookAccountInFlight,
        );
      } finally {
        await dead.close();
      }
    });

    it('When X’s receiver answers in 2.5 s with 24 deliveries waiting, Then Y’s delivery arrives within 3 s', async () => {
      const slowPath = `/slow-${crypto.randomUUID()}`;
      // X's answers take 2.5 s, or come at once when the test ends (the delivery run then finishes X's backlog at once
      // instead of keeping the worker busy after the test)
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = () => resolve()));
      receiver.answerWith((r) => (r.path === slowPath ? Promise.race([sleep(2500), released]).then(() => 200) : 200));
      try {
        const { latency } = await latencyOfY([receiver.url(slowPath)], 24, () => receiver.at(slowPath).length >= 1);
        expect(latency, 'Y waited').to.be.below(3000);
      } finally {
        receiver.answerWith(() => 200);
        release();
      }
    });
  });
});
