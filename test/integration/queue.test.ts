import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../src/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, makeUser } from '../factories.js';
import { ageGiveBacks, claimsOf, historyOf, lapseClaim, seedQueue } from '../queue-fixtures.js';

/** The error a promise rejects with (the test fails if it resolves). */
async function refusal(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a refusal');
}

const future = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe('Agent work queue: order, claims and outcomes', () => {
  it('hands out due call_later leads earliest first, then new leads oldest first, and nothing else', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const leads = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 50 }, // 0: third (second-oldest new)
      { status: 'call_later', actionInMinutes: -5 }, // 1: second (due 5 minutes ago)
      { status: 'new', createdMinutesAgo: 90 }, // 2: oldest new
      { status: 'call_later', actionInMinutes: 30 }, // 3: not yet due: never
      { status: 'call_later', actionInMinutes: -60 }, // 4: first (due an hour ago)
      { status: 'no_answer', createdMinutesAgo: 500 },
      { status: 'confirmed', createdMinutesAgo: 500 },
      { status: 'wrong', createdMinutesAgo: 500 },
      { status: 'duplicate', createdMinutesAgo: 500 },
      { status: 'canceled', createdMinutesAgo: 500 },
    ]);
    const agent = acc.agent.actor;
    const handed: string[] = [];
    // each `next` releases the agent's earlier lead, which then stays away from them: the agent walks the queue
    for (let item = await ctx.services.queue.next(agent); item; item = await ctx.services.queue.next(agent)) {
      handed.push(item.reference);
      if (handed.length > 10) break;
    }
    expect(handed).to.deep.equal([4, 1, 2, 0].map((i) => leads[i].reference));
  });

  it('answers the claimed lead in full, with its claim time, and counts what waits', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await seedQueue(ctx, acc, [
      { status: 'new' },
      { status: 'new' },
      { status: 'call_later', actionInMinutes: -1 },
      { status: 'call_later', actionInMinutes: 60 },
      { status: 'call_later', actionInMinutes: 120 },
      { status: 'wrong' },
    ]);
    const before = await ctx.services.queue.counts(acc.agent.actor);
    expect(before).to.deep.equal({
      fresh: 0,
      due_call_later: 1,
      new: 2,
      due_no_answer: 0,
      scheduled_call_later: 2,
      claimed: 0,
    });
    const started = Date.now();
    const item = (await ctx.services.queue.next(acc.agent.actor))!;
    expect(item.status).to.equal('call_later');
    expect(item.products).to.deep.equal([
      // what is left on the shelf comes with the line (docs/stock.md): nothing was received
      { sku: acc.skus.active[1], name: `Product ${acc.skus.active[1]}`, quantity: 1, price: 200, available: 0 },
    ]);
    expect(item.history).to.have.length(1);
    const lasts = Date.parse(item.claim_expires_at) - started;
    expect(lasts).to.be.within(290_000, 310_000);
    expect((await ctx.services.queue.counts(acc.seller.actor)).claimed).to.equal(1);
  });

  it('keeps a claimed lead from other agents until the claim lapses; then the holder can no longer finish it', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [only] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const other = await makeUser(ctx, acc.id, 'agent');
    const { queue } = ctx.services;
    expect((await queue.next(acc.agent.actor))!.id).to.equal(only.id);
    expect(await queue.next(other.actor), 'held by the first agent').to.equal(null);

    await lapseClaim(ctx, only.id);
    expect((await queue.next(other.actor))!.id, 'a lapsed claim is taken over').to.equal(only.id);
    const late = await refusal(queue.outcome(acc.agent.actor, only.id, { status: 'confirmed' }));
    expect(late).to.be.instanceOf(ConflictError);
    expect(late.message).to.equal('Another agent is working on this lead.');
    expect((await ctx.models.Lead.findByPk(only.id))!.status).to.equal('new');
    expect(await historyOf(ctx, only.id)).to.have.length(1);
    await queue.outcome(other.actor, only.id, { status: 'no_answer' });
    expect((await ctx.models.Lead.findByPk(only.id))!.status).to.equal('no_answer');
  });

  it('lets the holder finish a lead whose claim lapsed while nobody else took it', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    await ctx.services.queue.next(acc.agent.actor);
    await lapseClaim(ctx, lead.id, 60);
    const { lead: after } = await ctx.services.queue.outcome(acc.agent.actor, lead.id, { status: 'wrong' });
    expect(after.status).to.equal('wrong');
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);
  });

  it('gives different leads to many agents asking at the same moment, and one lead to one agent asking twice', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const leads = await seedQueue(ctx, acc, [
      ...Array.from({ length: 6 }, () => ({ status: 'new' })),
      ...Array.from({ length: 3 }, (_, i) => ({ status: 'call_later', actionInMinutes: -1 - i })),
    ]);
    const agents = [
      acc.agent,
      acc.seller,
      ...(await Promise.all(Array.from({ length: 10 }, () => makeUser(ctx, acc.id, 'agent')))),
    ];
    const items = await Promise.all(agents.map((a) => ctx.services.queue.next(a.actor)));
    const ids = items.filter((i) => i !== null).map((i) => i!.id);
    expect(ids, 'every lead handed out once').to.have.members(leads.map((l) => l.id));
    expect(items.filter((i) => i === null)).to.have.length(agents.length - leads.length);
    const claims = await claimsOf(ctx, acc.id);
    expect(new Set(claims.map((c) => c.user_id)).size, 'one claim per agent').to.equal(leads.length);

    const acc2 = await makeAccount(ctx);
    await seedQueue(ctx, acc2, [{ status: 'new' }, { status: 'new' }, { status: 'new' }]);
    await Promise.all([1, 2, 3].map(() => ctx.services.queue.next(acc2.agent.actor)));
    expect((await claimsOf(ctx, acc2.id)).filter((c) => c.live)).to.have.length(1);
  });

  it('refuses the outcome of a lead the actor does not hold, and changes nothing', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [held, free] = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 9 },
      { status: 'new', createdMinutesAgo: 1 },
    ]);
    await ctx.services.queue.next(acc.agent.actor);
    const other = await makeUser(ctx, acc.id, 'agent');
    const taken = await refusal(ctx.services.queue.outcome(other.actor, held.id, { status: 'confirmed' }));
    expect(taken).to.be.instanceOf(ConflictError);
    const never = await refusal(ctx.services.queue.outcome(acc.agent.actor, free.id, { status: 'confirmed' }));
    expect(never).to.be.instanceOf(ConflictError);
    expect(never.message).to.match(/do not hold/);
    expect(await ctx.models.Order.count({ where: { account_id: acc.id } })).to.equal(0);
    expect((await historyOf(ctx, free.id)).map((h) => h.new_status)).to.deep.equal(['new']);
  });

  it('releases a lead to the others at once, and to the releasing agent only later', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const { queue } = ctx.services;
    await queue.next(acc.agent.actor);
    expect(await queue.release(acc.agent.actor, lead.id)).to.deep.equal({ released: true });
    expect(await queue.release(acc.agent.actor, lead.id)).to.deep.equal({ released: false });
    expect(await queue.next(acc.agent.actor), 'skipped by this agent').to.equal(null);
    await ageGiveBacks(ctx, acc.id, 301);
    expect((await queue.next(acc.agent.actor))!.id, 'after the skip time').to.equal(lead.id);
    await queue.release(acc.agent.actor, lead.id);
    const other = await makeUser(ctx, acc.id, 'agent');
    expect((await queue.next(other.actor))!.id).to.equal(lead.id);
  });

  it('cleans claims that lapsed long ago when agents ask for leads', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b] = await seedQueue(ctx, acc, [{ status: 'new' }, { status: 'new' }]);
    const other = await makeUser(ctx, acc.id, 'agent');
    await ctx.services.queue.next(acc.agent.actor);
    await ctx.services.queue.next(other.actor);
    await lapseClaim(ctx, a.id, 3600);
    await lapseClaim(ctx, b.id, 3600);
    await ctx.services.queue.next(acc.seller.actor);
    const left = await claimsOf(ctx, acc.id);
    expect(left, 'only the new claim').to.have.length(1);
    expect(left[0].user_id).to.equal(acc.seller.id);
  });
});

describe('Agent work queue: outcomes through the leads write path', () => {
  it('confirms a lead into its order exactly as the REST update does', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [viaQueue, viaRest] = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 9 },
      { status: 'new', createdMinutesAgo: 1 },
    ]);
    await ctx.services.queue.next(acc.agent.actor);
    const done = await ctx.services.queue.outcome(acc.agent.actor, viaQueue.id, { status: 'confirmed', note: ' ok ' });
    await ctx.services.leads.updateStatuses(acc.seller.actor, {
      leads: [{ reference: viaRest.reference, status: 'confirmed' }],
    });
    const orderOf = (ref: string) => ctx.services.orders.show(acc.seller.actor, { reference: ref });
    const [fromQueue, fromRest] = await Promise.all([
      orderOf(done.order_reference!),
      ctx.models.Order.findOne({ where: { account_id: acc.id, lead_reference: viaRest.reference } }).then((o) =>
        orderOf(o!.reference),
      ),
    ]);
    expect(done.lead.order_reference).to.equal(done.order_reference);
    expect(fromQueue.lead_reference).to.equal(viaQueue.reference);
    const same = (o: typeof fromQueue) => ({ status: o.status, products: o.products, total: o.total, city: o.city });
    expect(same(fromQueue)).to.deep.equal(same(fromRest));
    expect(fromQueue.history.map((h) => h.new_status)).to.deep.equal(['new']);
    expect(await historyOf(ctx, viaQueue.id)).to.deep.equal([
      { old_status: null, new_status: 'new', note: null },
      { old_status: 'new', new_status: 'confirmed', note: 'ok' },
    ]);
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);
  });

  it('requires a future action date for call_later, naming action_date, and schedules the lead', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const { queue } = ctx.services;
    await queue.next(acc.agent.actor);
    for (const action_date of [undefined, '2020-01-01T10:00:00+00:00', new Date(Date.now() - 1000).toISOString()]) {
      const err = await refusal(queue.outcome(acc.agent.actor, lead.id, { status: 'call_later', action_date }));
      expect(err, String(action_date)).to.be.instanceOf(ValidationError);
      expect(Object.keys((err as ValidationError).errors)).to.deep.equal(['action_date']);
    }
    const at = future(90);
    const { lead: after } = await queue.outcome(acc.agent.actor, lead.id, {
      status: 'call_later',
      action_date: at,
      note: 'after work',
    });
    expect(after.action_date).to.equal(at);
    expect(after.history.at(-1)).to.include({ new_status: 'call_later', note: 'after work' });
    expect(await queue.counts(acc.agent.actor)).to.include({ scheduled_call_later: 1, due_call_later: 0, new: 0 });
    expect(await queue.next(acc.agent.actor), 'not due yet').to.equal(null);
  });

  it('keeps a note on a call_later lead moved to a later time, though the status stays', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'call_later', actionInMinutes: -3 }]);
    await ctx.services.queue.next(acc.agent.actor);
    await ctx.services.queue.outcome(acc.agent.actor, lead.id, {
      status: 'call_later',
      action_date: future(60),
      note: 'busy',
    });
    expect((await historyOf(ctx, lead.id)).at(-1)).to.deep.equal({
      old_status: 'call_later',
      new_status: 'call_later',
      note: 'busy',
    });
  });

  it('validates outcomes: status, note length, unknown keys; an empty note is no note', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const { queue } = ctx.services;
    await queue.next(acc.agent.actor);
    const bad: [unknown, string][] = [
      [{ status: 'new' }, 'status'],
      [{ status: 'duplicate' }, 'status'],
      [{}, 'status'],
      [{ status: 'wrong', note: 'x'.repeat(501) }, 'note'],
      [{ status: 'wrong', note: 'a\u0000b' }, 'note'],
      [{ status: 'wrong', account_id: 1 }, 'account_id'],
      ['wrong', 'body'],
    ];
    for (const [input, field] of bad) {
      const err = await refusal(queue.outcome(acc.agent.actor, lead.id, input));
      expect(err, JSON.stringify(input)).to.be.instanceOf(ValidationError);
      expect(Object.keys((err as ValidationError).errors), JSON.stringify(input)).to.include(field);
    }
    await queue.outcome(acc.agent.actor, lead.id, { status: 'wrong', note: ` ${'y'.repeat(500)}  ` });
    expect((await historyOf(ctx, lead.id)).at(-1)!.note).to.have.length(500);
  });
});

describe('Agent work queue: tenancy and who may work it', () => {
  it("never hands out another account's leads; foreign ids are unknown; an admin names the account", async () => {
    const ctx = getCtx();
    const [mine, theirs] = [await makeAccount(ctx), await makeAccount(ctx)];
    const [foreign] = await seedQueue(ctx, theirs, [{ status: 'new' }]);
    const { queue } = ctx.services;
    expect(await queue.next(mine.agent.actor)).to.equal(null);
    expect(await queue.counts(mine.agent.actor)).to.deep.equal({
      fresh: 0,
      due_call_later: 0,
      new: 0,
      due_no_answer: 0,
      scheduled_call_later: 0,
      claimed: 0,
    });
    for (const call of [
      () => queue.outcome(mine.agent.actor, foreign.id, { status: 'wrong' }),
      () => queue.outcome(mine.agent.actor, { reference: foreign.reference }, { status: 'wrong' }),
      () => queue.release(mine.agent.actor, foreign.id),
      () => queue.outcome(mine.agent.actor, 99_999_999_999, { status: 'wrong' }),
      () => queue.release(mine.agent.actor, -1),
    ])
      expect(await refusal(call())).to.be.instanceOf(NotFoundError);
    expect((await ctx.models.Lead.findByPk(foreign.id))!.status).to.equal('new');
    for (const call of [
      () => queue.next(mine.agent.actor, { account_id: theirs.id }),
      () => queue.counts(mine.seller.actor, { account_id: theirs.id }),
    ]) {
      const err = await refusal(call());
      expect(err).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).errors).to.have.keys('account_id');
    }
    const admin = await makeAdmin(ctx);
    expect((await queue.counts(admin.actor, { account_id: theirs.id })).new).to.equal(1);
    const item = (await queue.next(admin.actor, { account_id: theirs.id }))!;
    expect(item.id).to.equal(foreign.id);
    await queue.outcome(admin.actor, foreign.id, { status: 'canceled' });
    expect((await ctx.models.Lead.findByPk(foreign.id))!.status).to.equal('canceled');
    expect(await refusal(queue.next(admin.actor, { account_id: 2_000_000_000 }))).to.be.instanceOf(ValidationError);
  });

  it('is worked by people who may view and update leads', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await seedQueue(ctx, acc, [{ status: 'new' }]);
    expect(await refusal(ctx.services.queue.next(systemActor(acc.id)))).to.be.instanceOf(ForbiddenError);
    expect(await ctx.services.queue.next(acc.seller.actor)).to.not.equal(null);
  });
});
