import { expect } from 'chai';
import { ValidationError } from '../../src/errors.js';
import { upsertClaim } from '../../src/queue/queue.repository.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { claimsOf, historyOf, lapseClaim, seedQueue } from '../queue-fixtures.js';
import { restClient } from '../rest-client.js';

// Review of the agent work queue as an attacker, an operator and a careless integrator would use it.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Agent work queue: review findings', () => {
  const web = useTestServer();

  it('refuses (409) the outcome of a held lead that left the queue meanwhile, and changes nothing', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [confirmed, rescheduled] = await seedQueue(ctx, acc, [
      { status: 'new' },
      { status: 'call_later', actionInMinutes: -5 },
    ]);
    const call = restClient(web.url, await acc.token());
    const cases = [
      {
        lead: rescheduled,
        put: { reference: rescheduled.reference, status: 'call_later', action_date: '2099-01-01T10:00:00+00:00' },
        left: 'call_later',
      },
      { lead: confirmed, put: { reference: confirmed.reference, status: 'confirmed' }, left: 'confirmed' },
    ];
    for (const { lead, put, left } of cases) {
      expect((await call('POST', '/queue/next')).body.data.reference).to.equal(lead.reference);
      // somebody else settles the lead (PUT /leads's write path) while the token's owner still holds it
      await ctx.services.leads.updateStatuses(acc.agent.actor, { leads: [put] });
      const before = await historyOf(ctx, lead.id);
      const res = await call('POST', `/queue/${lead.reference}/outcome`, { status: 'canceled', note: 'late' });
      expect(res.status, left).to.equal(409);
      expect(res.body.message).to.match(/no longer waits in the queue/);
      expect((await ctx.models.Lead.findByPk(lead.id))!.status).to.equal(left);
      expect(await historyOf(ctx, lead.id)).to.deep.equal(before);
    }
    // the confirmed lead kept its one order, and its status
    expect(await ctx.models.Order.count({ where: { lead_id: confirmed.id } })).to.equal(1);
  });

  it('hands out leads while another agent holds claims it is cleaning: no deadlock, no error', async function () {
    this.timeout(20_000);
    const ctx = getCtx();
    const { sequelize } = ctx.db;
    const acc = await makeAccount(ctx);
    const [a, b] = await seedQueue(ctx, acc, [
      { status: 'new', createdMinutesAgo: 90 },
      { status: 'new', createdMinutesAgo: 60 },
    ]);
    const other = await makeUser(ctx, acc.id, 'agent');
    // both leads were skipped long ago: their claims lapsed past the grace, so any `next` cleans them
    await ctx.services.queue.next(other.actor);
    await ctx.services.queue.next(other.actor);
    for (const lead of [a, b]) await lapseClaim(ctx, lead.id, 3600);
    expect(await claimsOf(ctx, acc.id)).to.have.length(2);
    // another agent's `next`, caught mid-way: it cleaned b's lapsed claim and took lead a
    const t = await sequelize.transaction();
    try {
      await sequelize.query('DELETE FROM lead_claims WHERE lead_id = $1', { bind: [b.id], transaction: t });
      await sequelize.query('SELECT id FROM leads WHERE id = $1 FOR UPDATE', { bind: [a.id], transaction: t });
      const asked = ctx.services.queue.next(acc.agent.actor).then(
        (item) => item?.reference,
        (err: Error) => err,
      );
      await sleep(300);
      // … and now claims lead a
      const claim = { leadId: a.id, accountId: acc.id, userId: other.id, seconds: 300, skipSeconds: 300 };
      const mine = await upsertClaim(sequelize, t, claim).catch((err: Error) => err);
      expect(mine).to.be.instanceOf(Date);
      await t.commit();
      expect(await asked).to.equal(b.reference);
    } finally {
      if (!(t as unknown as { finished?: string }).finished) await t.rollback();
    }
  });

  it('refuses a call-back time past 9999-12-31 in UTC or with an offset no place has (422), like PUT /leads', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    await ctx.services.queue.next(acc.agent.actor);
    // 23:59 behind UTC on the last day is year 10000 in UTC: shown as "+010000-01-01T…" by every later read
    for (const at of ['9999-12-31T23:59:59-23:59', '2030-01-01T10:00:00+15:00', '2030-01-01T10:00:00-20:00']) {
      const err = await ctx.services.queue
        .outcome(acc.agent.actor, lead.id, { status: 'call_later', action_date: at })
        .then(
          () => null,
          (e: Error) => e,
        );
      expect(err, at).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).errors, at).to.have.keys('action_date');
    }
    expect((await ctx.models.Lead.findByPk(lead.id))!.status).to.equal('new');
    const ok = await ctx.services.queue.outcome(acc.agent.actor, lead.id, {
      status: 'call_later',
      action_date: '2099-12-31T23:59:59-12:00',
    });
    expect(ok.lead.status).to.equal('call_later');
  });

  it('hands the lead of an agent deactivated while holding it to the others at once', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const leaving = await makeUser(ctx, acc.id, 'agent');
    expect((await ctx.services.queue.next(leaving.actor))!.reference).to.equal(lead.reference);
    await ctx.services.accounts.updateUser(acc.seller.actor, leaving.id, { active: false });
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);
    expect((await ctx.services.queue.next(acc.agent.actor))?.reference).to.equal(lead.reference);
  });
});
