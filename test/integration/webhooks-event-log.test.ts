import crypto from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { AppContext } from '../../src/app-context.js';
import { fanOutAll } from '../../src/webhooks/webhook-fanout.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';

/** Issue 29: the event log and its fan-out (what a crash, a later endpoint, an inactive one and the clean-up do). */
const EVENTS = ['lead.created', 'lead.status_changed'];
const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;

const leads = async (ctx: AppContext, acc: TestAccount, n: number) =>
  (
    await ctx.services.leads.createMany(acc.seller.actor, {
      leads: Array.from({ length: n }, (_, i) => ({
        phone: phone(),
        full_name: `Customer ${i}`,
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
      })),
    })
  ).references;

const rows = (sql: string, bind: unknown[]) =>
  getCtx().db.sequelize.query<Record<string, any>>(sql, { bind, type: QueryTypes.SELECT });
const deliveriesOf = (endpointId: number) =>
  rows('SELECT webhook_event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId]);
const waitingEvents = (accountId: number) =>
  rows('SELECT id FROM webhook_events WHERE account_id = $1 AND fanned_out_at IS NULL', [accountId]);

describe('webhooks: the event log and its fan-out (issue 29)', () => {
  it('When the fan-out fails mid-batch, Then nothing is delivered or marked, and the next fan-out writes each delivery once', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const hooks = [];
    for (const path of ['/a', '/b'])
      hooks.push(
        (await ctx.services.webhooks.create(acc.seller.actor, { url: `http://127.0.0.1:9${path}`, events: EVENTS }))
          .endpoint.id,
      );
    await leads(ctx, acc, 3);
    const real = ctx.db.sequelize;
    const crashing = new Proxy(real, {
      get: (t, k) =>
        k === 'query'
          ? (sql: string, o: unknown) =>
              String(sql).includes('INSERT INTO webhook_deliveries')
                ? Promise.reject(new Error('Connection terminated unexpectedly'))
                : t.query(sql, o as never)
          : Reflect.get(t, k),
    }) as Sequelize;
    const err = await fanOutAll(crashing).catch((e: Error) => e);
    expect(err).to.have.property('message', 'Connection terminated unexpectedly');
    expect(await waitingEvents(acc.id)).to.have.length(3);
    expect((await Promise.all(hooks.map(deliveriesOf))).flat()).to.have.length(0);

    // two workers fan out at once: each event once per endpoint
    await Promise.all([ctx.services.webhooks.fanOut(), ctx.services.webhooks.fanOut()]);
    expect(await waitingEvents(acc.id)).to.have.length(0);
    for (const id of hooks) {
      const ids = (await deliveriesOf(id)).map((d) => d.webhook_event_id);
      expect(ids).to.have.length(3);
      expect(new Set(ids).size).to.equal(3);
    }
  });

  it('When an endpoint is created later or is inactive while events happen, Then it gets no delivery for those events', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const first = await ctx.services.webhooks.create(acc.seller.actor, { url: 'http://127.0.0.1:9/1', events: EVENTS });
    await leads(ctx, acc, 2);
    const later = await ctx.services.webhooks.create(acc.seller.actor, { url: 'http://127.0.0.1:9/2', events: EVENTS });
    await ctx.services.webhooks.fanOut();
    expect(await deliveriesOf(first.endpoint.id)).to.have.length(2);
    expect(await deliveriesOf(later.endpoint.id)).to.have.length(0);

    await ctx.services.webhooks.update(acc.seller.actor, later.endpoint.id, { active: false });
    await leads(ctx, acc, 1);
    await ctx.services.webhooks.fanOut();
    await ctx.services.webhooks.update(acc.seller.actor, later.endpoint.id, { active: true });
    await ctx.services.webhooks.fanOut();
    expect(await deliveriesOf(later.endpoint.id)).to.have.length(0);
    await leads(ctx, acc, 1);
    await ctx.services.webhooks.fanOut();
    expect(await deliveriesOf(later.endpoint.id)).to.have.length(1);
    expect(await deliveriesOf(first.endpoint.id)).to.have.length(4);
  });

  it('When events were fanned out longer ago than WEBHOOK_LOG_DAYS, Then the daily clean-up removes them and keeps the others', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.services.webhooks.create(acc.seller.actor, { url: 'http://127.0.0.1:9/old', events: EVENTS });
    await leads(ctx, acc, 3);
    await ctx.services.webhooks.fanOut();
    const [old, recent, waiting] = await rows('SELECT id FROM webhook_events WHERE account_id = $1 ORDER BY id', [
      acc.id,
    ]);
    await rows(`UPDATE webhook_events SET fanned_out_at = now() - interval '31 days' WHERE id = $1`, [old.id]);
    await rows(
      `UPDATE webhook_events SET fanned_out_at = NULL, created_at = now() - interval '90 days' WHERE id = $1`,
      [waiting.id],
    );
    await ctx.services.webhooks.removeOldDeliveries();
    const kept = await rows('SELECT id FROM webhook_events WHERE account_id = $1 ORDER BY id', [acc.id]);
    expect(kept.map((e) => e.id)).to.deep.equal([recent.id, waiting.id]);
    await rows('UPDATE webhook_events SET fanned_out_at = now() WHERE id = $1', [waiting.id]);
  });
});
