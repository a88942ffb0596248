import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { followStockJob } from '../../jobs/stock.job.js';
import { jobDefinitions } from '../../jobs/index.js';
import type { OrderStatus } from '../../src/orders/order.model.js';
import { DELETABLE_ORDER_STATUSES, ORDER_TRANSITIONS } from '../../src/orders/order.transitions.js';
import { systemActor } from '../../src/actor.js';
import { STOCK_FOLLOW_CHANNEL } from '../../src/stock/stock.follows.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { confirm, fromOrders, levels, move, newLead, orderOf } from '../stock-fixtures.js';

/**
 * Shipments and returns follow through the worker (docs/stock.md, "Shipments and returns follow"): the write that moves
 * the orders queues them, the follow-stock job writes their ledger rows and levels; what is available never waits.
 */

async function shippedOrder(acc: TestAccount, sku: string, quantity: number): Promise<string> {
  const lead = await newLead(acc, [[sku, quantity]]);
  await confirm(acc.seller.actor, lead);
  const order = await orderOf(lead);
  await move(acc, order, 'pushed');
  await move(acc, order, 'shipped');
  return order;
}

const ledgerOf = (reference: string) =>
  getCtx().db.sequelize.query<{ kind: string; quantity: number; reserved_change: number; changed_by: string }>(
    'SELECT kind, quantity, reserved_change, changed_by FROM stock_movements WHERE order_reference = $1 ORDER BY id',
    { bind: [reference], type: QueryTypes.SELECT },
  );

describe('stock follows', function () {
  this.timeout(60_000);

  it('When an order ships, Then its stock waits for the worker without changing what is available, and follow-stock moves it', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 10 }] });
    const order = await shippedOrder(acc, a, 2);

    expect((await levels(acc.id))[0]).to.deep.include({ on_hand: 10, reserved: 2, available: 8 });
    expect((await ctx.services.stock.check(systemActor())).waiting).to.be.at.least(1);
    await ctx.services.stock.follow();
    expect((await levels(acc.id))[0]).to.deep.include({ on_hand: 8, reserved: 0, available: 8 });
    expect(await ledgerOf(order)).to.deep.equal([
      { kind: 'reservation', quantity: 2, reserved_change: 2, changed_by: acc.seller.actor.name },
      { kind: 'shipment', quantity: -2, reserved_change: -2, changed_by: acc.seller.actor.name },
    ]);
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM stock_follows f JOIN orders o ON o.id = f.order_id WHERE o.account_id = $1`,
      { bind: [acc.id], type: QueryTypes.SELECT },
    );
    expect(n).to.equal(0);
  });

  it('When an order ships and comes back before the worker runs, Then each move is written in turn, by its author', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 5 }] });
    const order = await shippedOrder(acc, a, 3);
    const admin = await makeAdmin(ctx);
    await ctx.services.orders.updateStatuses(admin.actor, { orders: [{ reference: order, status: 'returned' }] });
    await ctx.services.stock.follow();
    const seller = acc.seller.actor.name;
    expect((await ledgerOf(order)).map((m) => [m.kind, m.quantity, m.reserved_change, m.changed_by])).to.deep.equal([
      ['reservation', 3, 3, seller],
      ['shipment', -3, -3, seller],
      ['return', 3, 0, admin.actor.name],
    ]);
    expect((await levels(acc.id))[0]).to.deep.include({ on_hand: 5, reserved: 0, available: 5 });
    const expected = await fromOrders(acc.id);
    expect((await levels(acc.id))[0]).to.deep.include(expected[a]);
  });

  it('When a seller corrects a count while a shipment waits, Then the shipment is applied first and nothing is counted twice', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 10 }] });
    await shippedOrder(acc, a, 2);
    // 8 are on the shelf: the seller takes the 8 broken ones off
    await ctx.services.stock.record(acc.seller.actor, {
      movements: [{ sku: a, kind: 'adjustment', quantity: -8, reason: 'Broken' }],
    });
    await ctx.services.stock.follow();
    expect((await levels(acc.id))[0]).to.deep.include({ on_hand: 0, reserved: 0, available: 0 });
  });

  it('When one waiting order cannot be applied, Then it keeps its error for stock:check and every other order moves', async () => {
    const ctx = getCtx();
    const [stuck, fine] = [await makeAccount(ctx), await makeAccount(ctx)];
    for (const acc of [stuck, fine])
      await ctx.services.stock.record(acc.seller.actor, {
        movements: [{ sku: acc.skus.active[0], kind: 'receipt', quantity: 5 }],
      });
    const bad = await shippedOrder(stuck, stuck.skus.active[0], 1);
    await ctx.services.stock.follow();
    await ctx.services.orders.updateStatuses(stuck.seller.actor, { orders: [{ reference: bad, status: 'returned' }] });
    // a level tampered up to the column's limit: the return cannot add to it
    await ctx.db.sequelize.query('UPDATE stock_levels SET on_hand = 2147483647 WHERE account_id = $1', {
      bind: [stuck.id],
    });
    const good = await shippedOrder(fine, fine.skus.active[0], 2);
    await ctx.services.stock.follow();
    expect((await ledgerOf(good)).map((m) => m.kind)).to.deep.equal(['reservation', 'shipment']);
    const { failed } = await ctx.services.stock.check(systemActor());
    const mine = failed.filter((f) => f.status === 'returned' && f.error.includes('out of range'));
    expect(mine.length).to.be.at.least(1);
    expect((await ledgerOf(bad)).map((m) => m.kind)).to.deep.equal(['reservation', 'shipment']);
  });

  it('When a receipt would take on_hand past 1,000,000,000, Then 422 names the sku and nothing is recorded', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    const many = Array.from({ length: 1000 }, () => ({ sku: a, kind: 'receipt', quantity: 1_000_000 }));
    await ctx.services.stock.record(acc.seller.actor, { movements: many });
    const err = await ctx.services.stock
      .record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 1 }] })
      .catch((e: unknown) => e);
    expect((err as { errors: Record<string, string[]> }).errors['movements.0.quantity']).to.deep.equal([
      `The movement would take ${a} in MAIN above 1000000000 (1000000000 on hand).`,
    ]);
    expect((await levels(acc.id))[0]).to.deep.include({ on_hand: 1_000_000_000 });
  });

  it('When two workers follow at once, Then every waiting order moves once', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a] = acc.skus.active;
    await ctx.services.stock.record(acc.seller.actor, { movements: [{ sku: a, kind: 'receipt', quantity: 50 }] });
    const orders: string[] = [];
    for (let i = 0; i < 6; i++) orders.push(await shippedOrder(acc, a, 1));
    await Promise.all([ctx.services.stock.follow(), ctx.services.stock.follow()]);
    for (const o of orders) expect((await ledgerOf(o)).map((m) => m.kind)).to.deep.equal(['reservation', 'shipment']);
    expect((await levels(acc.id))[0]).to.deep.include({ on_hand: 44, reserved: 0, available: 44 });
  });

  it('When an order has left, Then it can never be canceled, deleted or sent from another warehouse while its stock waits', () => {
    // the premise of stock.follows.ts, read from the orders' own lists: from a status that queues, no path leads to
    // canceled or new (the warehouse move is for new orders), and none of them may be deleted
    const queued: OrderStatus[] = ['shipped', 'delivered', 'returned'];
    const reachable = new Set<OrderStatus>(queued);
    for (let grew = true; grew;) {
      grew = false;
      for (const s of [...reachable])
        for (const next of ORDER_TRANSITIONS[s]) if (!reachable.has(next)) grew = !!reachable.add(next);
    }
    expect([...reachable].sort()).to.deep.equal([...queued].sort());
    expect(queued.filter((s) => DELETABLE_ORDER_STATUSES.includes(s))).to.deep.equal([]);
  });

  it('When the worker starts, Then follow-stock is one of its jobs, woken by the channel the moves notify', () => {
    expect(jobDefinitions).to.include(followStockJob);
    expect(followStockJob.wakeOn).to.equal(STOCK_FOLLOW_CHANNEL);
    expect(followStockJob.every).to.be.a('string');
  });
});
