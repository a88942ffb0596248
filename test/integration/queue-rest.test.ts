import { expect } from 'chai';
import { SCOPES, type Scope } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { claimsOf, historyOf, seedQueue } from '../queue-fixtures.js';
import { restClient } from '../rest-client.js';

const inAnHour = () => {
  // the spec's Y-m-d\TH:i:sP, one hour ahead
  const d = new Date(Date.now() + 3_600_000);
  return d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
};

describe('REST agent work queue', () => {
  const web = useTestServer();

  it('counts, hands out, sets the outcome and gives back leads; claims belong to the token owner', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [due, fresh] = await seedQueue(ctx, acc, [
      { status: 'call_later', actionInMinutes: -10 },
      { status: 'new' },
      { status: 'call_later', actionInMinutes: 60 },
    ]);
    const call = restClient(web.url, await acc.token());
    const counts = await call('GET', '/queue');
    expect(counts.status).to.equal(200);
    expect(counts.body).to.deep.equal({
      data: { fresh: 0, due_call_later: 1, new: 1, due_no_answer: 0, scheduled_call_later: 1, claimed: 0 },
    });
    expect(counts.headers.get('x-ratelimit-limit')).to.equal('60');

    const first = await call('POST', '/queue/next');
    expect(first.status).to.equal(200);
    expect(first.body.data).to.include({ reference: due.reference, status: 'call_later' });
    expect(first.body.data).to.not.have.any.keys('id', 'account_id', 'city_id');
    expect(Date.parse(first.body.data.claim_expires_at)).to.be.above(Date.now());
    expect((await claimsOf(ctx, acc.id)).map((c) => c.user_id)).to.deep.equal([acc.seller.id]);

    const done = await call('POST', `/queue/${due.reference.toLowerCase()}/outcome`, {
      status: 'confirmed',
      note: 'Wants it on Friday',
    });
    expect(done.status).to.equal(200);
    expect(done.body.data.status).to.equal('confirmed');
    expect(done.body.order_reference).to.match(/^OR[0-9A-Z]{10}$/);
    expect(done.body.data.history.at(-1)).to.include({ new_status: 'confirmed', note: 'Wants it on Friday' });
    const show = await call('GET', `/leads/${due.reference}/show`);
    expect(show.body.data.order_reference).to.equal(done.body.order_reference);
    expect(show.body.data.history.map((h: { note: string | null }) => h.note)).to.deep.equal([
      null,
      'Wants it on Friday',
    ]);

    const second = await call('POST', '/queue/next', {});
    expect(second.body.data.reference).to.equal(fresh.reference);
    const back = await call('POST', `/queue/${fresh.reference}/release`);
    expect(back.status).to.equal(200);
    expect(back.body).to.deep.equal({ message: 'Lead released.', released: true });
    const none = await call('POST', '/queue/next');
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.equal({ message: 'No lead waits in the queue.', data: null });
  });

  it('claims nothing on a GET of a state-changing route (405), and names action_date when it is missing or past', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const call = restClient(web.url, await acc.token());
    for (const path of ['/queue/next', `/queue/${lead.reference}/outcome`, `/queue/${lead.reference}/release`]) {
      expect((await call('GET', path)).status, path).to.equal(405);
      expect((await call('PUT', path, {})).status, path).to.equal(405);
    }
    expect((await call('POST', '/queue')).status).to.equal(405);
    expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);

    await call('POST', '/queue/next');
    for (const body of [{ status: 'call_later' }, { status: 'call_later', action_date: '2021-03-01T10:00:00+01:00' }]) {
      const res = await call('POST', `/queue/${lead.reference}/outcome`, body);
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.have.keys('action_date');
      expect(res.body.message).to.be.a('string');
    }
    const later = await call('POST', `/queue/${lead.reference}/outcome`, {
      status: 'call_later',
      action_date: inAnHour(),
    });
    expect(later.status).to.equal(200);
    expect(later.body.order_reference).to.equal(null);
  });

  it("answers 409 to an outcome of a lead the token's owner does not hold", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    await ctx.services.queue.next(acc.agent.actor);
    const res = await restClient(web.url, await acc.token())('POST', `/queue/${lead.reference}/outcome`, {
      status: 'wrong',
    });
    expect(res.status).to.equal(409);
    expect(res.body).to.deep.equal({ message: 'Another agent is working on this lead.' });
    expect((await historyOf(ctx, lead.id)).length).to.equal(1);
  });

  const needs: [string, string, Scope, unknown?][] = [
    ['GET', '/queue', 'VIEW LEADS'],
    ['POST', '/queue/next', 'VIEW LEADS'],
    ['POST', '/queue/next', 'UPDATE LEADS'],
    ['POST', '/queue/LD0000000000/outcome', 'UPDATE LEADS', { status: 'wrong' }],
    ['POST', '/queue/LD0000000000/outcome', 'VIEW LEADS', ['not', 'an object']],
    ['POST', '/queue/LD0000000000/release', 'UPDATE LEADS'],
  ];
  for (const [method, path, scope, body] of needs) {
    it(`answers 403 on ${method} ${path} for a token without ${scope}, and claims nothing`, async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      await seedQueue(ctx, acc, [{ status: 'new' }]);
      const call = restClient(web.url, await acc.token(SCOPES.filter((s) => s !== scope)));
      const res = await call(method, path, body);
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({ message: 'This action is unauthorized.' });
      expect(await claimsOf(ctx, acc.id)).to.deep.equal([]);
    });
  }

  it("answers tampered requests with 4xx, never 500, and another account's lead as unknown", async () => {
    const ctx = getCtx();
    const [acc, other] = [await makeAccount(ctx), await makeAccount(ctx)];
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const [foreign] = await seedQueue(ctx, other, [{ status: 'new' }]);
    const call = restClient(web.url, await acc.token());
    await call('POST', '/queue/next');
    const outcome = `/queue/${lead.reference}/outcome`;
    const cases: [string, string, unknown, number, string?][] = [
      ['POST', '/queue/next', { account_id: other.id }, 422, 'account_id'],
      ['POST', '/queue/next', { account_id: 99_999_999_999 }, 422, 'account_id'],
      ['POST', '/queue/next', { account_id: 'x', extra: 1 }, 422, 'extra'],
      ['POST', '/queue/next', [1, 2], 422],
      ['GET', '/queue?account_id=1e400', null, 422, 'account_id'],
      ['GET', '/queue?sneaky=1', null, 422, 'sneaky'],
      ['POST', outcome, { status: 'wrong', sneaky: true }, 422, 'sneaky'],
      ['POST', outcome, { status: 'wrong\u0000' }, 422, 'status'],
      ['POST', outcome, { status: 'wrong', note: 'n'.repeat(100_000) }, 422, 'note'],
      ['POST', outcome, { status: 'wrong', note: 'a\u0000b' }, 422, 'note'],
      ['POST', outcome, { status: ['wrong'] }, 422, 'status'],
      ['POST', outcome, { status: 'call_later', action_date: '2026-02-31T10:00:00+00:00' }, 422, 'action_date'],
      ['POST', outcome, { status: 'call_later', action_date: 'x'.repeat(10_000) }, 422, 'action_date'],
      ['POST', outcome, '{"status": ', 400],
      ['POST', `/queue/${foreign.reference}/outcome`, { status: 'wrong' }, 404],
      ['POST', `/queue/${foreign.reference}/release`, {}, 404],
      ['POST', `/queue/${'9'.repeat(30)}/outcome`, { status: 'wrong' }, 404],
      ['POST', `/queue/${encodeURIComponent('LD\u0000')}/release`, {}, 404],
      ['POST', `/queue/${encodeURIComponent('LD\u0000')}/outcome`, { status: 'wrong' }, 404],
      ['POST', `/queue/${'L'.repeat(5000)}/release`, {}, 404],
    ];
    for (const [method, path, body, status, field] of cases) {
      const res = await call(method, path, body ?? undefined);
      const what = `${method} ${path.slice(0, 60)} ${JSON.stringify(body)?.slice(0, 60)}`;
      expect(res.status, what).to.equal(status);
      if (field) expect(res.body.errors, what).to.have.property(field);
    }
    expect((await ctx.models.Lead.findByPk(lead.id))!.status).to.equal('new');
    expect((await ctx.models.Lead.findByPk(foreign.id))!.status).to.equal('new');
  });
});
