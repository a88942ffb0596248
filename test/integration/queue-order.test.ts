import { expect } from 'chai';
import type { AppContext } from '../../src/app-context.js';
import type { Actor } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { claimsOf, seedQueue } from '../queue-fixtures.js';

// The order of the agent work queue (issue 33, docs/api.md "Agent work queue"): fresh new leads (QUEUE_FRESH_SECONDS,
// 900 s in tests as by default), due call-backs, older new leads, no_answer leads due for another try
// (QUEUE_RETRY_SECONDS, 7,200 s). Minutes below are measured from the test's now.

const DAY = 24 * 60;

/** The references one agent is handed, walking the queue with `next` until nothing waits (at most `max`). */
async function walk(ctx: AppContext, agent: Actor, max = 20): Promise<string[]> {
  const handed: string[] = [];
  for (let item = await ctx.services.queue.next(agent); item; item = await ctx.services.queue.next(agent)) {
    handed.push(item.reference);
    if (handed.length >= max) break;
  }
  return handed;
}

describe('Agent work queue: fresh leads first, no_answer leads tried again', () => {
  it('When a 2-minute-old new lead, a due call-back and a 2-day-old no_answer lead wait, Then the new lead comes first', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [noAnswer, callBack, fresh] = await seedQueue(ctx, acc, [
      { status: 'no_answer', createdMinutesAgo: 3 * DAY, changedMinutesAgo: 2 * DAY },
      { status: 'call_later', createdMinutesAgo: DAY, actionInMinutes: -30 },
      { status: 'new', createdMinutesAgo: 2 },
    ]);
    expect(await walk(ctx, acc.agent.actor)).to.deep.equal([fresh, callBack, noAnswer].map((l) => l.reference));
  });

  it('When every kind of lead waits, Then fresh (oldest first), due call-backs, older new, due no_answer, nothing else', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const leads = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 20 }, // 0: out of the window: after the call-backs
      { status: 'no_answer', changedMinutesAgo: 3 * 60 }, // 1: due an hour ago
      { status: 'new', createdMinutesAgo: 1 }, // 2: fresh, the younger
      { status: 'call_later', actionInMinutes: -5 }, // 3: due 5 minutes ago
      { status: 'no_answer', changedMinutesAgo: DAY }, // 4: due since 22 hours: the longest-waiting no_answer
      { status: 'new', createdMinutesAgo: 14 }, // 5: fresh, a minute from leaving the window: first
      { status: 'call_later', actionInMinutes: -90 }, // 6: due for longer: the first call-back
      { status: 'new', createdMinutesAgo: 3 * DAY }, // 7: the oldest new lead
      { status: 'no_answer', changedMinutesAgo: 30 }, // 8: tried half an hour ago: not yet
      { status: 'call_later', actionInMinutes: 10 }, // 9: not yet due
      { status: 'confirmed', changedMinutesAgo: DAY },
      { status: 'wrong', changedMinutesAgo: DAY },
      { status: 'duplicate', changedMinutesAgo: DAY },
      { status: 'canceled', changedMinutesAgo: DAY },
    ]);
    const expected = [5, 2, 6, 3, 7, 0, 4, 1].map((i) => leads[i].reference);
    expect(await walk(ctx, acc.agent.actor)).to.deep.equal(expected);
  });

  it('When a new lead is older than the window, Then it waits behind every due call-back', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [older, dueLater, dueEarlier] = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 16 },
      { status: 'call_later', actionInMinutes: -1 },
      { status: 'call_later', actionInMinutes: -2 * DAY },
    ]);
    expect(await walk(ctx, acc.agent.actor)).to.deep.equal([dueEarlier, dueLater, older].map((l) => l.reference));
  });

  it('When an import made new leads a minute ago, Then they are not fresh: due call-backs come first', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [imported, callBack, fresh] = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 1 },
      { status: 'call_later', actionInMinutes: -1 },
      { status: 'new', createdMinutesAgo: 0 },
    ]);
    await ctx.db.sequelize.query(
      `WITH run AS (INSERT INTO import_runs (account_id, file_name, file_path, file_type, status)
                    VALUES ($1, 'old-contacts.csv', 'x', 'csv', 'completed') RETURNING id)
       UPDATE leads SET import_run_id = (SELECT id FROM run) WHERE id = $2`,
      { bind: [acc.id, imported.id] },
    );
    expect(await ctx.services.queue.counts(acc.agent.actor)).to.include({ fresh: 1, new: 2 });
    expect(await walk(ctx, acc.agent.actor)).to.deep.equal([fresh, callBack, imported].map((l) => l.reference));
  });

  it('When a no_answer lead was last changed less than QUEUE_RETRY_SECONDS ago, Then it is never handed out', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await seedQueue(ctx, acc, [
      { status: 'no_answer', createdMinutesAgo: 3 * DAY, changedMinutesAgo: 119 },
      { status: 'no_answer', createdMinutesAgo: 10 },
    ]);
    expect(await ctx.services.queue.next(acc.agent.actor)).to.equal(null);
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);
    expect(await ctx.services.queue.counts(acc.agent.actor)).to.include({ due_no_answer: 0, new: 0, fresh: 0 });
  });

  it('When an agent sets no_answer again on a retried lead, Then it waits another QUEUE_RETRY_SECONDS for everyone', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'no_answer', changedMinutesAgo: 5 * 60 }]);
    const { queue } = ctx.services;
    expect((await queue.next(acc.agent.actor))!.reference).to.equal(lead.reference);
    const { lead: after } = await queue.outcome(acc.agent.actor, lead.id, { status: 'no_answer', note: 'again' });
    expect(after.status).to.equal('no_answer');
    expect(after.history.at(-1)).to.include({ old_status: 'no_answer', new_status: 'no_answer', note: 'again' });
    expect(await queue.next(acc.seller.actor), 'tried a moment ago').to.equal(null);
    expect(await queue.counts(acc.seller.actor)).to.include({ due_no_answer: 0, claimed: 0 });
  });

  it('When leads wait in every group, Then GET /queue counts fresh and due no_answer leads too', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 2 },
      { status: 'new', createdMinutesAgo: 14 },
      { status: 'new', createdMinutesAgo: 16 },
      { status: 'no_answer', changedMinutesAgo: 121 },
      { status: 'no_answer', changedMinutesAgo: 2 * DAY },
      { status: 'no_answer', changedMinutesAgo: 60 },
      { status: 'call_later', actionInMinutes: -1 },
    ]);
    await seedQueue(ctx, other, [
      { status: 'new', createdMinutesAgo: 1 },
      { status: 'no_answer', changedMinutesAgo: DAY },
    ]);
    expect(await ctx.services.queue.counts(acc.agent.actor)).to.deep.equal({
      fresh: 2,
      due_call_later: 1,
      new: 3,
      due_no_answer: 2,
      scheduled_call_later: 0,
      claimed: 0,
    });
  });
});
