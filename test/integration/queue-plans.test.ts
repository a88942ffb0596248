import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { upsertClaim } from '../../src/queue/queue.repository.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser } from '../factories.js';
import { captureSql, planWithoutSeqScan } from '../helpers.js';
import { lapseClaim, seedQueue } from '../queue-fixtures.js';

describe('Agent work queue: the claim statement and the plans', () => {
  it("never takes over another agent's live claim, whatever the caller's snapshot saw; takes a lapsed one", async () => {
    const ctx = getCtx();
    const { sequelize } = ctx.db;
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const other = await makeUser(ctx, acc.id, 'agent');
    const claim = (userId: number) =>
      sequelize.transaction((t) =>
        upsertClaim(sequelize, t, { leadId: lead.id, accountId: acc.id, userId, seconds: 60, skipSeconds: 60 }),
      );
    expect(await claim(acc.agent.id)).to.be.instanceOf(Date);
    expect(await claim(other.id), "another agent's live claim").to.equal(null);
    expect(await claim(acc.agent.id), 'renewing one’s own').to.be.instanceOf(Date);
    await lapseClaim(ctx, lead.id);
    expect(await claim(other.id), 'a lapsed claim').to.be.instanceOf(Date);
    const [row] = await sequelize.query<{ user_id: number }>('SELECT user_id FROM lead_claims WHERE lead_id = $1', {
      bind: [lead.id],
      type: QueryTypes.SELECT,
    });
    expect(row.user_id).to.equal(other.id);
  });

  it('When the queue is walked to its end, Then each of its four rules reads its own index, with no scan of leads', async () => {
    const ctx = getCtx();
    const { sequelize } = ctx.db;
    const acc = await makeAccount(ctx);
    await seedQueue(ctx, acc, [
      ...Array.from({ length: 4 }, (_, i) => ({ status: 'new', createdMinutesAgo: 1 + i })),
      ...Array.from({ length: 4 }, (_, i) => ({ status: 'call_later', actionInMinutes: -1 - i })),
      ...Array.from({ length: 4 }, (_, i) => ({ status: 'new', createdMinutesAgo: 100 + i })),
      ...Array.from({ length: 40 }, (_, i) => ({ status: 'call_later', actionInMinutes: 10 + i })),
      ...Array.from({ length: 40 }, (_, i) => ({ status: 'no_answer', changedMinutesAgo: 200 + i })),
      ...Array.from({ length: 40 }, () => ({ status: 'no_answer' })),
      ...Array.from({ length: 40 }, () => ({ status: 'confirmed' })),
    ]);
    await sequelize.query('VACUUM ANALYZE leads, lead_claims, lead_give_backs');
    // a rule's statement runs only when the rules before it find nothing: walk past the first three
    const { sent } = await captureSql(sequelize, async () => {
      for (let i = 0; i < 14; i++) await ctx.services.queue.next(acc.agent.actor);
      await ctx.services.queue.counts(acc.agent.actor);
    });
    const cases: [string, RegExp][] = [
      ['l.import_run_id IS NULL', /Index Scan using leads_fresh_new_idx/],
      ["l.status = 'call_later'", /Index Scan using leads_call_later_due_idx/],
      ["l.status = 'new' AND l.id", /Index Scan Backward using leads_account_status_created_idx/],
      ["l.status = 'no_answer'", /Index Scan using leads_no_answer_due_idx/],
    ];
    for (const [marker, index] of cases) {
      const statement = sent.find((s) => s.sql.includes(marker) && s.sql.includes('SKIP LOCKED'))!;
      expect(statement, marker).to.not.equal(undefined);
      // the plan must not depend on what other test files left in the leads table: sorts off, a Sort means no index
      // gives the rule its order
      const plan = await planWithoutSeqScan(sequelize, statement, { noSort: true });
      expect(plan, `${marker}:\n${plan}`).to.match(index);
      expect(plan, `${marker}:\n${plan}`).not.to.match(/Seq Scan on leads|Sort/);
    }
    const counting = sent.find((s) => s.sql.includes('AS resting_no_answer'))!;
    const plan = await planWithoutSeqScan(sequelize, counting);
    for (const index of ['leads_fresh_new_idx', 'leads_call_later_due_idx', 'leads_no_answer_due_idx'])
      expect(plan).to.include(index);
    expect(plan).not.to.match(/Seq Scan on leads/);
  });
});
