import crypto from 'node:crypto';
import { expect } from 'chai';
import type { AppContext } from '../../src/app-context.js';
import { createWebhookService } from '../../src/webhooks/webhook.service.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { getCtx } from '../hooks.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';
import { useReceiver } from '../webhook-receiver.js';

/** Issue 29: the cap on an account's endpoints, and deleting an endpoint while its deliveries are being recorded. */
const EVENTS = ['lead.created'];
const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;

const leads = (ctx: AppContext, acc: TestAccount, n: number) =>
  ctx.services.leads.createMany(acc.seller.actor, {
    leads: Array.from({ length: n }, (_, i) => ({
      phone: phone(),
      full_name: `Client ${i}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    })),
  });

describe('webhooks: endpoint cap and deletes during deliveries (issue 29)', function () {
  this.timeout(180_000);
  const web = useTestServer();
  const receiver = useReceiver();

  it('When an account has WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT endpoints, Then REST, dashboard and panel refuse another with 422 naming the cap', async () => {
    const ctx = getCtx();
    const max = ctx.config.webhookMaxEndpointsPerAccount;
    expect(max).to.equal(10);
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
    for (let i = 0; i < max; i++) {
      const res = await call('POST', '/webhooks', { url: receiver.url(`/cap-${i}`), events: EVENTS });
      expect(res.status).to.equal(201);
    }
    const message = `An account may have at most ${max} webhook endpoints; delete one before adding another.`;
    const rest = await call('POST', '/webhooks', { url: receiver.url('/cap-over'), events: EVENTS });
    expect(rest.status).to.equal(422);
    expect(rest.body).to.deep.include({ message, errors: { url: [message] } });

    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const dash = await seller.fetch('/webhooks', { method: 'POST', json: { url: receiver.url('/x'), events: EVENTS } });
    expect(dash.status).to.equal(422);
    expect(await dash.json()).to.deep.include({ errors: { url: [message] } });
    const panel = await seller.fetch('/admin/api/resources/webhook_endpoints/actions/new', {
      method: 'POST',
      headers: { origin: web.url },
      json: { url: receiver.url('/y'), 'events.0': EVENTS[0], active: 'true' },
    });
    expect(panel.status).to.be.below(500);
    const shown = (await panel.json()) as { notice?: { type: string }; record?: { errors?: unknown } };
    expect(shown.notice?.type).to.equal('error');
    expect(JSON.stringify(shown.record?.errors)).to.include(message);
    expect(await ctx.models.WebhookEndpoint.count({ where: { account_id: acc.id } })).to.equal(max);

    // a place freed is a place to take again
    const [first] = (await ctx.services.webhooks.list(acc.seller.actor)).data;
    await ctx.services.webhooks.remove(acc.seller.actor, first.id);
    expect((await call('POST', '/webhooks', { url: receiver.url('/cap-again'), events: EVENTS })).status).to.equal(201);
  });

  it('When 16 creates of one account race, Then exactly the cap is stored and the others answer 422', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call('POST', '/webhooks', { url: receiver.url(`/race-${i}`), events: EVENTS }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([...Array(10).fill(201), ...Array(6).fill(422)]);
    expect(await ctx.models.WebhookEndpoint.count({ where: { account_id: acc.id } })).to.equal(10);
  });

  it('When an endpoint is deleted while its deliveries are being recorded (24 tries), Then the delete answers 200, never 500, and the run goes on', async () => {
    const ctx = getCtx();
    // eight lanes, all of them free for this account: as many attempts recorded at once as the claims allow
    const svc = createWebhookService({
      ...ctx,
      config: { ...ctx.config, webhookConcurrency: 8, webhookAccountInFlight: 8 },
    });
    const failures: string[] = [];
    for (let round = 0; round < 24; round++) {
      const acc = await makeAccount(ctx);
      const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
      const path = `/held-${round}`;
      const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
        url: receiver.url(path),
        events: EVENTS,
      });
      await leads(ctx, acc, 8);
      let release = () => {};
      const held = new Promise<number>((resolve) => (release = () => resolve(200)));
      receiver.answerWith((r) => (r.path === path ? held : 200));
      const run = svc.deliverDue().then(
        () => null,
        (err: Error) => err.message,
      );
      const started = Date.now();
      while (receiver.at(path).length < 4 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 5));
      // the answers come back (each attempt then records) while the endpoint is being deleted
      release();
      const gone = await call('DELETE', `/webhooks/${endpoint.id}`);
      const runError = await run;
      if (gone.status !== 200) failures.push(`round ${round}: DELETE ${gone.status} ${JSON.stringify(gone.body)}`);
      if (runError) failures.push(`round ${round}: run failed: ${runError}`);
      receiver.answerWith(() => 200);
    }
    expect(failures).to.deep.equal([]);
  });
});
