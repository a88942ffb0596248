import { expect } from 'chai';
import { createJobSystem, type JobSystem } from '../../jobs/agenda.js';
import { deliverWebhooksJob } from '../../jobs/webhooks.job.js';
import * as migration from '../../migrations/20261201000000-webhooks.js';
import { claimInAccount } from '../../src/webhooks/webhook-claim.js';
import * as eventsMigration from '../../migrations/20261202000000-webhook-events.js';
import * as standardMigration from '../../migrations/20261203000000-standard-webhooks.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { waitFor } from '../spawn.js';
import { startReceiver, type Receiver } from '../webhook-receiver.js';

describe('Webhooks: the delivery job on a worker', () => {
  let receiver: Receiver;
  let jobs: JobSystem;
  before(async () => {
    const ctx = getCtx();
    receiver = await startReceiver();
    jobs = await createJobSystem(ctx.config, ctx.db.url, ctx.logger, ctx.metrics);
    await jobs.startWorker(ctx, [deliverWebhooksJob]);
  });
  after(async () => {
    await jobs.close();
    await getCtx().db.sequelize.query('DELETE FROM agenda_jobs WHERE name = $1', { bind: [deliverWebhooksJob.name] });
    await receiver.close();
  });

  it('sends a committed change within seconds (woken at commit, not at the 10 s sweep), never in the request', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.services.webhooks.create(acc.seller.actor, { url: receiver.url('/worker'), events: ['lead.created'] });
    const started = Date.now();
    const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        { phone: '+212612300001', full_name: 'Worker', products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }] },
      ],
    });
    // the request returned before anything was sent
    expect(receiver.at('/worker')).to.have.length(0);
    expect(await waitFor(async () => receiver.at('/worker').length === 1, 8000)).to.equal(true);
    expect(Date.now() - started).to.be.below(5000);
    expect(receiver.at('/worker')[0].body.data.lead.reference).to.equal(references[0]);
  });
});

describe('the webhooks migration', () => {
  it('When it and the event log are reverted and applied again, Then tables, functions and triggers go and come back', async () => {
    const ctx = getCtx();
    const context = ctx.db.sequelize;
    const count = async (sql: string) => Number((await context.query(sql))[0].length);
    const objects = async () => [
      await count("SELECT 1 FROM pg_tables WHERE tablename LIKE 'webhook_%'"),
      // the stock migration's stock.low trigger and function are its own (migrations/20261214000000-stock.ts)
      await count(
        "SELECT 1 FROM pg_trigger WHERE tgname LIKE '%_webhooks' AND tgname <> 'stock_levels_webhooks' AND tgenabled = 'A'",
      ),
      await count("SELECT 1 FROM pg_proc WHERE proname LIKE 'webhook%' AND proname <> 'webhooks_emit_stock_levels'"),
    ];
    expect(await objects()).to.deep.equal([3, 3, 6]);
    await standardMigration.down({ name: 'standard-webhooks', context });
    await eventsMigration.down({ name: 'webhook-events', context });
    expect(await objects()).to.deep.equal([2, 3, 5]);
    await migration.down({ name: 'webhooks', context });
    expect(await objects()).to.deep.equal([0, 0, 0]);
    // writes go on without the triggers
    const acc = await makeAccount(ctx);
    await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212612300002',
          full_name: 'No hooks',
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }],
        },
      ],
    });
    await migration.up({ name: 'webhooks', context });
    expect(await objects()).to.deep.equal([2, 3, 5]);
    // a delivery pending before the event log (written by the old triggers) survives it and is still sent
    // (the endpoint written as the code of that time wrote it: today's model has columns of later migrations)
    const [[endpoint]] = (await context.query(
      `INSERT INTO webhook_endpoints (account_id, url, events, secret)
       VALUES (${acc.id}, 'http://127.0.0.1:9/before-the-log', '{lead.created}', 'whsec_${'a'.repeat(43)}') RETURNING id`,
    )) as [{ id: number }[], unknown];
    await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        { phone: '+212612300003', full_name: 'Old', products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }] },
      ],
    });
    await eventsMigration.up({ name: 'webhook-events', context });
    await standardMigration.up({ name: 'standard-webhooks', context });
    expect(await objects()).to.deep.equal([3, 3, 6]);
    const [pending] = await context.query(`SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id}`);
    expect(pending).to.have.length(1);
    const claimed = await claimInAccount(context, acc.id, { holdMs: 1000, perEndpoint: 1, perAccount: 1 });
    expect(claimed && claimed.endpoint_id).to.equal(endpoint.id);
    await ctx.services.webhooks.remove(acc.seller.actor, endpoint.id);
  });
});
