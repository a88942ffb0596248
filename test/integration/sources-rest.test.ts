import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { SCOPES } from '../../src/actor.js';
import { recordIntake } from '../../src/sources/intake.repository.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';

/** Lead sources' own routes (issue 34, docs/api.md "Lead sources"): scope MANAGE SOURCES, tenancy, refusals. */
const SECRET = 'shpss_0123456789abcdef0123456789abcdef';

const sourcesOf = (accountId: number) =>
  getCtx().db.sequelize.query<{ name: string; signing_secret: string | null; public_key: string; active: boolean }>(
    'SELECT name, signing_secret, public_key, active FROM lead_sources WHERE account_id = $1 ORDER BY id',
    { bind: [accountId], type: QueryTypes.SELECT },
  );

async function manager(url: string, acc?: TestAccount) {
  const a = acc ?? (await makeAccount(getCtx()));
  return { acc: a, call: restClient(url, await a.token(['MANAGE SOURCES'], 'crm')) };
}

const form = (acc: TestAccount, extra: Record<string, unknown> = {}) => ({
  kind: 'form',
  name: 'Summer page',
  allowed_origins: ['https://Shop.example:443', 'http://localhost:8080'],
  thank_you_url: 'https://shop.example/thanks',
  default_products: [{ sku: acc.skus.active[0], quantity: 2 }],
  ...extra,
});

describe('REST lead sources (scope MANAGE SOURCES)', () => {
  const web = useTestServer();

  it('When a token adds a form, Then 201 with a generated key, normalised origins, its address, listed and shown', async () => {
    const { acc, call } = await manager(web.url);

    const res = await call('POST', '/sources', form(acc));

    expect(res.status).to.equal(201);
    const data = res.body.data;
    expect(data).to.include({ account_id: acc.id, kind: 'form', name: 'Summer page', active: true });
    expect(data.allowed_origins).to.deep.equal(['https://shop.example', 'http://localhost:8080']);
    expect(data.default_products).to.deep.equal([{ sku: acc.skus.active[0], quantity: 2 }]);
    expect(data.public_key).to.match(/^[A-Za-z0-9_-]{24}$/);
    expect(data.intake_url).to.match(new RegExp(`/api/web/1\\.0/intake/forms/${data.public_key}$`));
    expect(data.health).to.deep.equal({ state: 'ok', received_24h: 0, refused_24h: 0 });
    expect(data.created_by).to.equal(`crm (${acc.seller.name})`);
    expect((await call('GET', '/sources')).body.data).to.deep.equal([data]);
    expect((await call('GET', `/sources/${data.id}`)).body).to.deep.equal({ data });
    const second = await call('POST', '/sources', form(acc));
    expect(second.body.data.public_key).to.not.equal(data.public_key);
  });

  it('When a shop is added with its secret, Then the secret is stored and only a hint is ever answered', async () => {
    const { acc, call } = await manager(web.url);

    const res = await call('POST', '/sources', { kind: 'shopify', name: 'My shop', signing_secret: SECRET });
    const replaced = await call('PUT', `/sources/${res.body.data.id}`, { signing_secret: 'another-secret-0000-9999' });

    expect(res.status).to.equal(201);
    expect(res.body.data.intake_url).to.include('/intake/shopify/');
    expect(res.body.data.signing_secret_hint).to.equal('••••cdef');
    expect(JSON.stringify(res.body)).to.not.include(SECRET.slice(0, 12));
    expect(replaced.body.data.signing_secret_hint).to.equal('••••9999');
    expect((await sourcesOf(acc.id))[0].signing_secret).to.equal('another-secret-0000-9999');
    const withoutSecret = await call('POST', '/sources', { kind: 'woocommerce', name: 'Woo' });
    expect(withoutSecret.status).to.equal(422);
    expect(Object.keys(withoutSecret.body.errors)).to.deep.equal(['signing_secret']);
  });

  it('When a source is changed, Then only what is named changes and the thank-you URL can be cleared', async () => {
    const { acc, call } = await manager(web.url);
    const made = (await call('POST', '/sources', form(acc))).body.data;

    const res = await call('PUT', `/sources/${made.id}`, { name: 'Autumn page', active: false, thank_you_url: null });

    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ name: 'Autumn page', active: false, thank_you_url: null });
    expect(res.body.data.allowed_origins).to.deep.equal(made.allowed_origins);
    expect(res.body.data.public_key).to.equal(made.public_key);
    const onForm = await call('PUT', `/sources/${made.id}`, { signing_secret: SECRET });
    expect(onForm.status).to.equal(422);
    expect((await sourcesOf(acc.id))[0]).to.include({ name: 'Autumn page', active: false, signing_secret: null });
  });

  it('When a source is deleted, Then 200, it is gone, its leads stay without a source, and again is 404', async () => {
    const ctx = getCtx();
    const { acc, call } = await manager(web.url);
    const made = (await call('POST', '/sources', form(acc))).body.data;
    const line = { sku: acc.skus.active[0], quantity: 1, price: 5 };
    const created = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [{ phone: '0612345678', full_name: 'Amina B', products: [line] }],
    });
    const [ref] = created.references;
    await ctx.db.sequelize.query('UPDATE leads SET source_id = $1 WHERE reference = $2', { bind: [made.id, ref] });

    const gone = await call('DELETE', `/sources/${made.id}`);

    expect(gone.status).to.equal(200);
    expect(gone.body).to.deep.equal({ message: 'Lead source deleted.', deleted: 1 });
    expect(await sourcesOf(acc.id)).to.deep.equal([]);
    const [lead] = await ctx.db.sequelize.query<{ source_id: number | null }>(
      'SELECT source_id FROM leads WHERE reference = $1',
      { bind: [ref], type: QueryTypes.SELECT },
    );
    expect(lead.source_id).to.equal(null);
    expect((await call('DELETE', `/sources/${made.id}`)).status).to.equal(404);
  });

  it('When a token lacks MANAGE SOURCES, Then every source route is 403 and nothing changes', async () => {
    const acc = await makeAccount(getCtx());
    const { call: owner } = await manager(web.url, acc);
    const { id } = (await owner('POST', '/sources', form(acc))).body.data;
    const call = restClient(web.url, await acc.token(SCOPES.filter((s) => s !== 'MANAGE SOURCES')));

    for (const [method, path, body] of [
      ['GET', '/sources'],
      ['POST', '/sources', form(acc)],
      ['GET', `/sources/${id}`],
      ['PUT', `/sources/${id}`, { name: 'x' }],
      ['DELETE', `/sources/${id}`],
      ['GET', `/sources/${id}/intake`],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.deep.equal({ message: 'This action is unauthorized.' });
    }
    expect((await sourcesOf(acc.id)).map((s) => s.name)).to.deep.equal(['Summer page']);
  });

  it('When another account’s source is named, Then 404 like an unknown one and account_id tampering is refused', async () => {
    const a = await manager(web.url);
    const b = await manager(web.url);
    const theirs = (await b.call('POST', '/sources', form(b.acc, { name: 'B only' }))).body.data;

    for (const [method, path, body] of [
      ['GET', `/sources/${theirs.id}`],
      ['PUT', `/sources/${theirs.id}`, { name: 'Hijacked' }],
      ['DELETE', `/sources/${theirs.id}`],
      ['GET', `/sources/${theirs.id}/intake`],
    ] as const)
      expect((await a.call(method, path, body)).status, `${method} ${path}`).to.equal(404);
    expect((await a.call('GET', '/sources')).body.data).to.deep.equal([]);
    const foreign = await a.call('POST', '/sources', { ...form(a.acc), account_id: b.acc.id });
    expect(foreign.status).to.equal(422);
    expect(Object.keys(foreign.body.errors)).to.deep.equal(['account_id']);
    expect((await a.call('GET', `/sources?account_id=${b.acc.id}`)).status).to.equal(422);
    const theirSku = await a.call(
      'POST',
      '/sources',
      form(a.acc, { default_products: [{ sku: b.acc.skus.active[0] }] }),
    );
    expect(theirSku.status).to.equal(422);
    expect((await sourcesOf(b.acc.id)).map((s) => s.name)).to.deep.equal(['B only']);
    expect(await sourcesOf(a.acc.id)).to.deep.equal([]);
  });

  it('When the input is bad, Then 422 naming the field and nothing is stored', async () => {
    const { acc, call } = await manager(web.url);
    const cases: [unknown, string][] = [
      [form(acc, { kind: 'ebay' }), 'kind'],
      [form(acc, { name: '' }), 'name'],
      [form(acc, { name: 'n'.repeat(101) }), 'name'],
      [form(acc, { name: 'a\u0000b' }), 'name'],
      [form(acc, { allowed_origins: ['https://shop.example/landing'] }), 'allowed_origins.0'],
      [form(acc, { allowed_origins: ['ftp://shop.example'] }), 'allowed_origins.0'],
      [form(acc, { allowed_origins: ['javascript:alert(1)'] }), 'allowed_origins.0'],
      [form(acc, { allowed_origins: ['https://user@shop.example'] }), 'allowed_origins.0'],
      [form(acc, { allowed_origins: ['shop.example'] }), 'allowed_origins.0'],
      [form(acc, { allowed_origins: 'https://shop.example' }), 'allowed_origins'],
      [
        form(acc, { allowed_origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example`) }),
        'allowed_origins',
      ],
      [form(acc, { thank_you_url: 'javascript:alert(1)' }), 'thank_you_url'],
      [form(acc, { thank_you_url: 'ftp://shop.example/x' }), 'thank_you_url'],
      [form(acc, { thank_you_url: 'https://user:pass@shop.example/thanks' }), 'thank_you_url'],
      [form(acc, { thank_you_url: 'https://user@shop.example/thanks' }), 'thank_you_url'],
      [form(acc, { default_products: [{ sku: 'NOPE' }] }), 'default_products.0.sku'],
      [form(acc, { default_products: [{ sku: acc.skus.inactive }] }), 'default_products.0.sku'],
      [form(acc, { default_products: [{ sku: acc.skus.active[0], quantity: 0 }] }), 'default_products.0.quantity'],
      [
        form(acc, { default_products: Array.from({ length: 5000 }, () => ({ sku: acc.skus.active[0] })) }),
        'default_products',
      ],
      [form(acc, { product_mapping: { 'shop-1': 'NOPE' } }), 'product_mapping.shop-1'],
      [form(acc, { product_mapping: ['x'] }), 'product_mapping'],
      [form(acc, { signing_secret: SECRET }), 'signing_secret'],
      [form(acc, { public_key: 'mine' }), 'public_key'],
      [form(acc, { extra: 1 }), 'extra'],
      [form(acc, { active: 'maybe' }), 'active'],
      [{ kind: 'shopify', name: 'S', signing_secret: 'short' }, 'signing_secret'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/sources', body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).to.equal(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body).slice(0, 120)).to.include(field);
    }
    for (const path of ['/sources?per_page=101', '/sources?page=0', '/sources?sort=x'])
      expect((await call('GET', path)).status, path).to.equal(422);
    for (const id of ['abc', '0', '-1', '99999999999', '1.5'])
      expect((await call('GET', `/sources/${id}`)).status, id).to.equal(404);
    expect((await call('PATCH', '/sources/1', { name: 'x' })).status).to.equal(405);
    expect(await sourcesOf(acc.id)).to.deep.equal([]);
  });

  it('When a source has submissions, Then its intake log answers them newest first, paged, within 30 days', async () => {
    const ctx = getCtx();
    const { acc, call } = await manager(web.url);
    const made = (await call('POST', '/sources', form(acc))).body.data;
    const entry = { accountId: acc.id, sourceId: made.id };
    await recordIntake(ctx.db.sequelize, { ...entry, outcome: 'refused', reason: 'Old', payload: {} });
    await ctx.db.sequelize.query(
      "UPDATE lead_intake SET received_at = now() - interval '31 days' WHERE source_id = $1",
      {
        bind: [made.id],
      },
    );
    await recordIntake(ctx.db.sequelize, { ...entry, outcome: 'created', origin: 'https://shop.example' });
    await recordIntake(ctx.db.sequelize, { ...entry, outcome: 'refused', reason: 'The phone field is required.' });

    const res = await call('GET', `/sources/${made.id}/intake?per_page=1`);
    const refused = await call('GET', `/sources/${made.id}/intake?outcome=refused`);

    expect(res.status).to.equal(200);
    expect(res.body.meta).to.include({ total: 2, per_page: 1 });
    expect(res.body.data[0]).to.include({ outcome: 'refused', reason: 'The phone field is required.' });
    expect(refused.body.data.map((e: { reason: string }) => e.reason)).to.deep.equal(['The phone field is required.']);
    expect((await call('GET', `/sources/${made.id}/intake?outcome=lost`)).status).to.equal(422);
  });

  it('When an agent or a seller uses the dashboard routes, Then the agent is refused everything; the seller manages', async () => {
    const acc = await makeAccount(getCtx());
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const agent = await login(web.url, acc.agent.email, acc.agent.password);

    const made = await seller.json('POST', '/sources', form(acc));
    const byAgent = await agent.json('POST', '/sources', form(acc));

    expect(made.status).to.equal(201);
    expect(byAgent.status).to.equal(403);
    expect((await agent.json('GET', '/sources')).status).to.equal(403);
    expect((await agent.json('GET', `/sources/${made.body.data.id}`)).status).to.equal(403);
    expect((await seller.json('PATCH', `/sources/${made.body.data.id}`, { name: 'Renamed' })).body.data.name).to.equal(
      'Renamed',
    );
    expect((await sourcesOf(acc.id)).map((s) => s.name)).to.deep.equal(['Renamed']);
  });

  it('When an admin adds a source, Then it must name an existing account and the source is that account’s', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const admin = await makeAdmin(ctx);

    const named = await ctx.services.sources.create(admin.actor, { ...form(acc), account_id: acc.id });
    const unknown = await ctx.services.sources
      .create(admin.actor, { ...form(acc), account_id: 2_000_000_000 })
      .catch((e: Error) => e);

    expect(named).to.include({ account_id: acc.id, created_by: admin.name });
    expect(unknown).to.have.property('name', 'ValidationError');
    expect((await ctx.services.sources.list(admin.actor, { account_id: acc.id })).data).to.have.length(1);
  });
});
