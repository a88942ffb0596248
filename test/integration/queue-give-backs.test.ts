import { expect } from 'chai';
import type { AppContext } from '../../src/app-context.js';
import { NotFoundError } from '../../src/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser, type TestAccount, type TestUser } from '../factories.js';
import { ageGiveBacks, claimsOf, giveBacksOf, lapseClaim, seedQueue } from '../queue-fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Every agent's give-backs are kept until they run out (issue 33): a lead an agent skipped comes back to them only
// after QUEUE_CLAIM_SECONDS (300 s in tests), whoever takes and gives it back meanwhile.

/** `count` new leads, the first the oldest. */
const newLeads = (ctx: AppContext, acc: TestAccount, count: number) =>
  seedQueue(
    ctx,
    acc,
    Array.from({ length: count }, (_, i) => ({ status: 'new', createdMinutesAgo: 600 - i })),
  );

/**
 * The agents skip in turns (each `next` gives back the lead they hold) until two rounds in a row hand out nothing (in
 * the first, an agent may have missed the last lead it never had while another still held it); answers the references
 * each agent was handed, in order. `together`: the agents of a round ask at the same moment.
 */
async function skipInTurns(ctx: AppContext, agents: TestUser[], together = false): Promise<string[][]> {
  const seen: string[][] = agents.map(() => []);
  let emptyRounds = 0;
  for (let round = 0; round < 50; round++) {
    const ask = (i: number) => ctx.services.queue.next(agents[i].actor);
    const items = together
      ? await Promise.all(agents.map((_, i) => ask(i)))
      : await agents.reduce<Promise<Awaited<ReturnType<typeof ask>>[]>>(
          async (done, _, i) => [...(await done), await ask(i)],
          Promise.resolve([]),
        );
    items.forEach((item, i) => item && seen[i].push(item.reference));
    emptyRounds = items.every((item) => item === null) ? emptyRounds + 1 : 0;
    if (emptyRounds === 2) return seen;
  }
  throw new Error('the queue was never exhausted');
}

describe('Agent work queue: every agent keeps their give-backs', () => {
  for (const agentCount of [2, 3]) {
    it(`When ${agentCount} agents skip in turns, Then each is handed a lead they never had every time, until all are seen`, async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const leads = await newLeads(ctx, acc, 10);
      const agents = [
        acc.agent,
        ...(await Promise.all(Array.from({ length: agentCount - 1 }, () => makeUser(ctx, acc.id, 'agent')))),
      ];
      const seen = await skipInTurns(ctx, agents);
      for (const [i, handed] of seen.entries()) {
        expect(new Set(handed).size, `agent ${i} saw a lead twice: ${handed.join(' ')}`).to.equal(handed.length);
        expect(handed, `agent ${i}`).to.have.members(leads.map((l) => l.reference));
      }
      // the queue is exhausted for them: every lead is one of their running give-backs, and no claim is live
      expect(await claimsOf(ctx, acc.id)).to.satisfy((claims: { live: boolean }[]) => claims.every((c) => !c.live));
      const running = (await giveBacksOf(ctx, acc.id)).filter((g) => g.running);
      expect(running).to.have.length(agentCount * leads.length);
      expect(await ctx.services.queue.next(acc.agent.actor), 'before the give-backs run out').to.equal(null);
      await ageGiveBacks(ctx, acc.id, 301);
      expect((await ctx.services.queue.next(acc.agent.actor))!.reference, 'after').to.equal(leads[0].reference);
    });
  }

  it('When three agents skip at the same moment in every round, Then none is handed a lead twice and none waits on another', async function () {
    this.timeout(30_000);
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const leads = await newLeads(ctx, acc, 8);
    const agents = [acc.agent, acc.seller, await makeUser(ctx, acc.id, 'agent')];
    const seen = await skipInTurns(ctx, agents, true);
    for (const [i, handed] of seen.entries()) {
      expect(new Set(handed).size, `agent ${i}: ${handed.join(' ')}`).to.equal(handed.length);
      expect(handed, `agent ${i}`).to.have.members(leads.map((l) => l.reference));
    }
  });

  it("When agent A gives a lead back and agent B takes and gives back the same lead, Then A's give-back still stands", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await newLeads(ctx, acc, 1);
    const b = await makeUser(ctx, acc.id, 'agent');
    const { queue } = ctx.services;
    expect((await queue.next(acc.agent.actor))!.reference).to.equal(lead.reference);
    expect(await queue.release(acc.agent.actor, lead.id)).to.deep.equal({ released: true });
    expect((await queue.next(b.actor))!.reference).to.equal(lead.reference);
    expect(await queue.release(b.actor, { reference: lead.reference })).to.deep.equal({ released: true });
    expect(await queue.next(acc.agent.actor), 'A skipped it').to.equal(null);
    expect(await queue.next(b.actor), 'B skipped it').to.equal(null);
    expect(await giveBacksOf(ctx, acc.id)).to.deep.equal([
      { lead_id: lead.id, user_id: Math.min(acc.agent.id, b.id), running: true },
      { lead_id: lead.id, user_id: Math.max(acc.agent.id, b.id), running: true },
    ]);
    expect((await queue.next(acc.seller.actor))!.reference, 'anybody else takes it').to.equal(lead.reference);
  });

  it("When A's claim lapses (a closed tab) and B takes the lead over and skips it, Then it stays away from A too", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead, second] = await newLeads(ctx, acc, 2);
    const b = await makeUser(ctx, acc.id, 'agent');
    const { queue } = ctx.services;
    expect((await queue.next(acc.agent.actor))!.reference).to.equal(lead.reference);
    await lapseClaim(ctx, lead.id, 10);
    expect((await queue.next(b.actor))!.reference, 'a lapsed claim is taken over').to.equal(lead.reference);
    expect((await queue.next(b.actor))!.reference, 'B skips it').to.equal(second.reference);
    expect(await queue.next(acc.agent.actor), 'A left it; B holds the other').to.equal(null);
    await ageGiveBacks(ctx, acc.id, 600);
    expect((await queue.next(acc.agent.actor))!.reference, 'once it ran out').to.equal(lead.reference);
  });

  it('When an agent releases a lead another agent holds, Then nothing is released and no give-back is written', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await newLeads(ctx, acc, 1);
    const b = await makeUser(ctx, acc.id, 'agent');
    await ctx.services.queue.next(acc.agent.actor);
    expect(await ctx.services.queue.release(b.actor, lead.id)).to.deep.equal({ released: false });
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([{ lead_id: lead.id, user_id: acc.agent.id, live: true }]);
    expect((await giveBacksOf(ctx, acc.id)).map((g) => g.user_id)).to.deep.equal([acc.agent.id]);
    const other = await makeAccount(ctx);
    const refused = await ctx.services.queue.release(other.agent.actor, lead.id).catch((err: Error) => err);
    expect(refused, "another account's lead").to.be.instanceOf(NotFoundError);
  });

  it("When an outcome is set, Then every agent's give-back of the lead is gone: when it comes back it is anybody's", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await newLeads(ctx, acc, 1);
    const b = await makeUser(ctx, acc.id, 'agent');
    const { queue } = ctx.services;
    await queue.next(acc.agent.actor);
    await queue.release(acc.agent.actor, lead.id);
    await queue.next(b.actor);
    await queue.outcome(b.actor, lead.id, { status: 'no_answer' });
    expect(await giveBacksOf(ctx, acc.id)).to.deep.equal([]);
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);
    // two hours later the no_answer lead is due again, for A too
    await ctx.db.sequelize.query(`UPDATE leads SET updated_at = now() - interval '121 minutes' WHERE id = $1`, {
      bind: [lead.id],
    });
    expect((await queue.next(acc.agent.actor))!.reference).to.equal(lead.reference);
  });

  it("When give-backs ran out, Then the next `next` of the account deletes them, and not another account's", async () => {
    const ctx = getCtx();
    const [acc, other] = [await makeAccount(ctx), await makeAccount(ctx)];
    const [skipped] = await newLeads(ctx, acc, 2);
    const [theirs] = await newLeads(ctx, other, 1);
    const { queue } = ctx.services;
    await queue.next(acc.agent.actor);
    await queue.next(acc.agent.actor); // gives back `skipped`, takes the other lead
    await queue.next(other.agent.actor);
    await queue.next(other.agent.actor); // gives back the other account's lead
    await ageGiveBacks(ctx, acc.id, 3600);
    await ageGiveBacks(ctx, other.id, 3600);
    expect((await giveBacksOf(ctx, acc.id)).filter((g) => !g.running)).to.have.length(2);
    expect((await queue.next(acc.seller.actor))!.reference).to.equal(skipped.reference);
    // only the seller's new one is left: the agent's ran out (a live claim still keeps its lead from everybody)
    expect(await giveBacksOf(ctx, acc.id)).to.deep.equal([
      { lead_id: skipped.id, user_id: acc.seller.id, running: true },
    ]);
    expect(await giveBacksOf(ctx, other.id), 'not this account’s to clean').to.deep.equal([
      { lead_id: theirs.id, user_id: other.agent.id, running: false },
    ]);
  });

  it('When a lead or a user is deleted, Then their give-backs go with them', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [gone, stays] = await newLeads(ctx, acc, 2);
    const leaving = await makeUser(ctx, acc.id, 'agent');
    const { queue } = ctx.services;
    // both agents take and give back both leads
    for (const agent of [acc.agent, leaving]) {
      expect((await queue.next(agent.actor))!.reference).to.equal(gone.reference);
      expect((await queue.next(agent.actor))!.reference).to.equal(stays.reference);
      await queue.release(agent.actor, stays.id);
    }
    expect(await giveBacksOf(ctx, acc.id)).to.have.length(4);
    await ctx.services.leads.deleteMany(acc.seller.actor, { references: [gone.reference] });
    const rows = await giveBacksOf(ctx, acc.id);
    expect(rows.map((g) => [g.lead_id, g.user_id])).to.have.deep.members([
      [stays.id, acc.agent.id],
      [stays.id, leaving.id],
    ]);
    await ctx.services.accounts.deleteUser(acc.seller.actor, leaving.id);
    expect(await giveBacksOf(ctx, acc.id)).to.deep.equal([{ lead_id: stays.id, user_id: acc.agent.id, running: true }]);
  });

  it('When a lead is deleted while its holder asks for the next one, Then neither waits on the other: the next lead comes', async function () {
    this.timeout(20_000);
    const ctx = getCtx();
    const { sequelize } = ctx.db;
    const acc = await makeAccount(ctx);
    const [held, next] = await newLeads(ctx, acc, 2);
    expect((await ctx.services.queue.next(acc.agent.actor))!.reference).to.equal(held.reference);
    // a seller's delete of the held lead, caught mid-way: it locked the lead and has yet to cascade to its claim
    const t = await sequelize.transaction();
    try {
      await sequelize.query('SELECT id FROM leads WHERE id = $1 FOR UPDATE', { bind: [held.id], transaction: t });
      const asked = ctx.services.queue.next(acc.agent.actor).then(
        (item) => item?.reference,
        (err: Error) => err,
      );
      await sleep(300);
      // … and now deletes it: the cascade takes the claim and the give-backs of the lead
      const deleted = await sequelize
        .query('DELETE FROM leads WHERE id = $1', { bind: [held.id], transaction: t })
        .catch((err: Error) => err);
      expect(deleted).not.to.be.instanceOf(Error);
      await t.commit();
      expect(await asked).to.equal(next.reference);
    } finally {
      if (!(t as unknown as { finished?: string }).finished) await t.rollback();
    }
    expect(await giveBacksOf(ctx, acc.id)).to.deep.equal([{ lead_id: next.id, user_id: acc.agent.id, running: true }]);
  });
});
