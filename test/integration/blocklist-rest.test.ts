import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { SCOPES } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';

/** The blocklist's own routes (issue 33, docs/api.md "Blocklist"): scope MANAGE BLOCKLIST, tenancy, refusals. */
const NATIONAL = '0612345678';
const E164 = '+212612345678';

const entriesOf = (accountId: number) =>
  getCtx().db.sequelize.query<{ phone: string; phone_normalized: string; reason: string; created_by: string }>(
    'SELECT phone, phone_normalized, reason, created_by FROM blocked_phones WHERE account_id = $1 ORDER BY id',
    { bind: [accountId], type: QueryTypes.SELECT },
  );

async function manager(url: string, acc?: TestAccount) {
  const a = acc ?? (await makeAccount(getCtx()));
  return { acc: a, call: restClient(url, await a.token(['MANAGE BLOCKLIST'], 'crm')) };
}

describe('REST blocklist (scope MANAGE BLOCKLIST)', () => {
  const web = useTestServer();

  it('When a token blocks a national phone, Then 201 with its E.164 form, listed, shown, and the row names the token', async () => {
    const { acc, call } = await manager(web.url);

    const res = await call('POST', '/blocklist', { phone: ` ${NATIONAL} `, reason: '  Fake orders  ' });

    expect(res.status).to.equal(201);
    expect(res.body.message).to.equal('Phone blocked.');
    expect(res.body.data).to.include({ account_id: acc.id, phone: NATIONAL, phone_normalized: E164 });
    expect(res.body.data.reason).to.equal('Fake orders');
    const listed = await call('GET', '/blocklist');
    expect(listed.status).to.equal(200);
    expect(listed.body.data).to.deep.equal([res.body.data]);
    expect(listed.body.meta).to.include({ total: 1, current_page: 1, per_page: 15 });
    const shown = await call('GET', `/blocklist/${res.body.data.id}`);
    expect(shown.body).to.deep.equal({ data: res.body.data });
    expect(await entriesOf(acc.id)).to.deep.equal([
      { phone: NATIONAL, phone_normalized: E164, reason: 'Fake orders', created_by: `crm (${acc.seller.name})` },
    ]);
  });

  it('When the same phone is blocked again in its international form, Then 422 already blocked and one row stays', async () => {
    const { acc, call } = await manager(web.url);
    await call('POST', '/blocklist', { phone: NATIONAL, reason: 'First' });

    const again = await call('POST', '/blocklist', { phone: '+212 6 12 34 56 78', reason: 'Second' });

    expect(again.status).to.equal(422);
    expect(again.body.errors).to.deep.equal({ phone: ['The phone is already blocked.'] });
    expect((await entriesOf(acc.id)).map((e) => e.reason)).to.deep.equal(['First']);
  });

  it('When two requests block one phone at once, typed two ways, Then one is 201, the other 422, and one row is stored', async () => {
    const { acc, call } = await manager(web.url);

    const answers = await Promise.all([
      call('POST', '/blocklist', { phone: NATIONAL, reason: 'A' }),
      call('POST', '/blocklist', { phone: E164, reason: 'B' }),
    ]);

    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 422]);
    expect(await entriesOf(acc.id)).to.have.length(1);
  });

  it('When the list is searched by phone typed any way, Then only the matching entries', async () => {
    const { call } = await manager(web.url);
    await call('POST', '/blocklist', { phone: NATIONAL, reason: 'One' });
    await call('POST', '/blocklist', { phone: '0699999999', reason: 'Two' });

    for (const phone of [NATIONAL, E164, '612345', '+212612345678']) {
      const found = await call('GET', `/blocklist?phone=${encodeURIComponent(phone)}`);
      expect(found.status, phone).to.equal(200);
      expect(
        found.body.data.map((e: { reason: string }) => e.reason),
        phone,
      ).to.deep.equal(['One']);
      expect(found.body.links.first, phone).to.include('phone=');
    }
    expect((await call('GET', '/blocklist?phone=abc')).body.data).to.deep.equal([]);
    expect(
      (await call('GET', '/blocklist?per_page=1&page=2')).body.data.map((e: { reason: string }) => e.reason),
    ).to.deep.equal(['One']);
  });

  it('When a phone is unblocked, Then 200, the row is gone and a second unblock is 404', async () => {
    const { acc, call } = await manager(web.url);
    const { id } = (await call('POST', '/blocklist', { phone: NATIONAL, reason: 'x' })).body.data;

    const gone = await call('DELETE', `/blocklist/${id}`);

    expect(gone.status).to.equal(200);
    expect(gone.body).to.deep.equal({ message: 'Phone unblocked.', deleted: 1 });
    expect(await entriesOf(acc.id)).to.deep.equal([]);
    expect((await call('DELETE', `/blocklist/${id}`)).status).to.equal(404);
    expect((await call('GET', `/blocklist/${id}`)).status).to.equal(404);
  });

  it('When a token lacks MANAGE BLOCKLIST, Then every blocklist route is 403 and nothing changes', async () => {
    const acc = await makeAccount(getCtx());
    const { call: owner } = await manager(web.url, acc);
    const { id } = (await owner('POST', '/blocklist', { phone: NATIONAL, reason: 'x' })).body.data;
    const call = restClient(web.url, await acc.token(SCOPES.filter((s) => s !== 'MANAGE BLOCKLIST')));

    for (const [method, path, body] of [
      ['GET', '/blocklist'],
      ['POST', '/blocklist', { phone: '0699999999', reason: 'y' }],
      ['GET', `/blocklist/${id}`],
      ['DELETE', `/blocklist/${id}`],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.deep.equal({ message: 'This action is unauthorized.' });
    }
    expect((await entriesOf(acc.id)).map((e) => e.phone)).to.deep.equal([NATIONAL]);
  });

  it('When another account’s entry is named, Then 404 like an unknown one; its list never shows it; account_id is refused', async () => {
    const a = await manager(web.url);
    const b = await manager(web.url);
    const theirs = (await b.call('POST', '/blocklist', { phone: NATIONAL, reason: 'B only' })).body.data;

    expect((await a.call('GET', `/blocklist/${theirs.id}`)).status).to.equal(404);
    expect((await a.call('DELETE', `/blocklist/${theirs.id}`)).status).to.equal(404);
    expect((await a.call('GET', '/blocklist')).body.data).to.deep.equal([]);
    const foreign = await a.call('POST', '/blocklist', { phone: '0677777777', reason: 'x', account_id: b.acc.id });
    expect(foreign.status).to.equal(422);
    expect(Object.keys(foreign.body.errors)).to.deep.equal(['account_id']);
    expect((await a.call('GET', `/blocklist?account_id=${b.acc.id}`)).status).to.equal(422);
    expect((await entriesOf(b.acc.id)).map((e) => e.reason)).to.deep.equal(['B only']);
    expect(await entriesOf(a.acc.id)).to.deep.equal([]);
  });

  it('When the input is bad, Then 422 naming the field and nothing is stored', async () => {
    const { acc, call } = await manager(web.url);
    const cases: [unknown, string][] = [
      [{ phone: '0600abc123', reason: 'x' }, 'phone'],
      [{ phone: '1234567', reason: 'x' }, 'phone'],
      [{ phone: '123456', reason: 'x' }, 'phone'],
      [{ phone: '1'.repeat(101), reason: 'x' }, 'phone'],
      [{ phone: NATIONAL }, 'reason'],
      [{ phone: NATIONAL, reason: '   ' }, 'reason'],
      [{ phone: NATIONAL, reason: 'r'.repeat(501) }, 'reason'],
      [{ phone: NATIONAL, reason: 'x', extra: 1 }, 'extra'],
      [{ phone: 612345678, reason: 'x' }, 'phone'],
      [{ phone: NATIONAL, reason: ['x'] }, 'reason'],
      [{ phone: NATIONAL, reason: 'a\u0000b' }, 'reason'],
      [{ phone: `${NATIONAL}\u0000`, reason: 'x' }, 'phone'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/blocklist', body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).to.include(field);
    }
    const uncallable = await call('POST', '/blocklist', { phone: '0600abc123', reason: 'x' });
    expect(uncallable.body.message).to.match(/not a possible phone number .* cannot be blocked/);
    for (const path of [
      '/blocklist?per_page=101',
      '/blocklist?page=0',
      '/blocklist?sort=x',
      '/blocklist?phone=' + '9'.repeat(101),
    ])
      expect((await call('GET', path)).status, path).to.equal(422);
    for (const id of ['abc', '0', '-1', '99999999999', '1.5'])
      expect((await call('DELETE', `/blocklist/${id}`)).status, id).to.equal(404);
    expect((await call('PUT', '/blocklist/1', { reason: 'x' })).status).to.equal(405);
    expect(await entriesOf(acc.id)).to.deep.equal([]);
  });

  it('When an agent or a seller uses the dashboard routes, Then the agent reads and is refused writes; the seller manages', async () => {
    const acc = await makeAccount(getCtx());
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const agent = await login(web.url, acc.agent.email, acc.agent.password);

    const made = await seller.json('POST', '/blocklist', { phone: NATIONAL, reason: 'Prank calls' });
    const blockByAgent = await agent.json('POST', '/blocklist', { phone: '0699999999', reason: 'x' });
    const listed = await agent.json('GET', '/blocklist');
    const unblockByAgent = await agent.json('DELETE', `/blocklist/${made.body.data.id}`);

    expect(made.status).to.equal(201);
    expect(made.body.data.created_by).to.equal(acc.seller.name);
    expect(blockByAgent.status).to.equal(403);
    expect(listed.body.data.map((e: { phone: string }) => e.phone)).to.deep.equal([NATIONAL]);
    expect(unblockByAgent.status).to.equal(403);
    expect((await entriesOf(acc.id)).map((e) => e.phone)).to.deep.equal([NATIONAL]);
    expect((await seller.json('DELETE', `/blocklist/${made.body.data.id}`)).status).to.equal(200);
  });

  it('When an admin blocks for an account, Then it must name an existing account and the entry is that account’s', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const admin = await makeAdmin(ctx);

    const named = await ctx.services.blocklist.block(admin.actor, { account_id: acc.id, phone: NATIONAL, reason: 'x' });
    const unknown = await ctx.services.blocklist
      .block(admin.actor, { account_id: 2_000_000_000, phone: NATIONAL, reason: 'x' })
      .catch((e: Error) => e);

    expect(named).to.include({ account_id: acc.id, phone_normalized: E164, created_by: admin.name });
    expect(unknown).to.have.property('name', 'ValidationError');
    expect((await ctx.services.blocklist.list(admin.actor, { account_id: acc.id })).data).to.have.length(1);
  });
});
