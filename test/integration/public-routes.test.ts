import crypto from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { makeAccount, makeCarrier } from '../factories.js';
import { makeFormSource } from '../form-sources.js';
import { getCtx } from '../hooks.js';
import { startTestServer } from '../helpers.js';
import { appOf, expressRoutes } from '../routes.js';
import { makeStoreSource } from '../store-webhooks.js';

/**
 * Every public route of the REST mount (no token: forms, shops, carrier callbacks), taken from the app's own route
 * list, against the shapes of the issue 40 attack (docs/lead-sources.md, docs/api.md): 5,000 levels of JSON, a deep
 * urlencoded body, a NUL byte, a lone surrogate, prototype keys, a body near each route's limit, an array, another
 * method, and a key that names nothing or another account's source. None is a 5xx; none creates a lead; what the
 * intake log keeps of them stays small; a key is never a metrics label.
 */
const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const SHAPES: [string, string, string][] = [
  ['5,000 levels of JSON', 'application/json', deep(5000)],
  ['5,000 levels of JSON beside real fields', 'application/json', `{"phone":"0612345678","x":${deep(5000)}}`],
  ['a deep urlencoded body', 'application/x-www-form-urlencoded', `${'a'}${'[a]'.repeat(2000)}=1`],
  ['a NUL byte', 'application/json', '{"phone":"06\\u000012345678","full_name":"Ami\\u0000na"}'],
  ['a lone surrogate', 'application/json', '{"phone":"0612345678","full_name":"Amina \\ud800"}'],
  ['prototype keys', 'application/json', '{"__proto__":{"x":1},"constructor":{"prototype":{"y":1}}}'],
  ['an array', 'application/json', '[1,2,3]'],
  ['60 KB in one field', 'application/json', JSON.stringify({ phone: '0612345678', full_name: 'x'.repeat(60_000) })],
];

describe('public routes against hostile shapes (issue 40, generated from the route list)', function () {
  this.timeout(120_000);
  let web: Awaited<ReturnType<typeof startTestServer>>;
  before(async () => {
    web = await startTestServer();
  });
  after(() => web?.close());

  it('When every public route gets every shape, another method and foreign keys, Then no 5xx, no lead, a small log and no key as a label', async () => {
    const ctx = getCtx();
    const [mine, theirs] = [await makeAccount(ctx), await makeAccount(ctx)];
    const form = await makeFormSource(mine.id, { products: [{ sku: mine.skus.active[0], quantity: 1 }] });
    const shops = {
      shopify: await makeStoreSource(mine.id, 'shopify'),
      woocommerce: await makeStoreSource(mine.id, 'woocommerce'),
    };
    const theirForm = await makeFormSource(theirs.id, { products: [{ sku: theirs.skus.active[0], quantity: 1 }] });
    const carrier = await makeCarrier(ctx, mine.id);
    const random = crypto.randomBytes(12).toString('hex');

    const publicRoutes = expressRoutes(appOf(web.server)).filter(
      (r) => r.mount === '/api/web/1.0' && r.method === 'post' && /\/intake\/|\/callback$/.test(r.path),
    );
    // the list is the app's: the form, both shops and the carrier callback are in it
    expect(publicRoutes.map((r) => r.path).sort()).to.deep.equal([
      '/intake/forms/:public_key',
      '/intake/shopify/:public_key',
      '/intake/woocommerce/:public_key',
      '/shipping/:code/callback',
    ]);
    const targets = publicRoutes.flatMap((r) => {
      if (r.path === '/shipping/:code/callback')
        return [`/shipping/${carrier.code}/callback?company=${carrier.id}`, `/shipping/${random}/callback?company=1`];
      const kind = r.path.split('/')[2] as 'forms' | 'shopify' | 'woocommerce';
      const key = kind === 'forms' ? form.public_key : shops[kind].key;
      const foreign = kind === 'forms' ? theirForm.public_key : random;
      return [r.path.replace(':public_key', key), r.path.replace(':public_key', foreign)];
    });

    const leadsBefore = await ctx.models.Lead.count({ where: { account_id: [mine.id, theirs.id] } });
    const answers: string[] = [];
    for (const target of targets) {
      const url = `${web.url}/api/web/1.0${target}`;
      for (const [shape, type, body] of SHAPES) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': type, accept: 'application/json' },
          body,
        });
        await res.arrayBuffer();
        answers.push(`${res.status} POST ${target} ${shape}`);
      }
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const res = await fetch(url, { method });
        await res.arrayBuffer();
        answers.push(`${res.status} ${method} ${target}`);
      }
    }
    expect(
      answers.filter((a) => /^(5\d\d|0) /.test(a)),
      'answers of 500 and above',
    ).to.deep.equal([]);
    expect(
      answers.filter((a) => /^2\d\d POST \/intake\/forms/.test(a)),
      'a form took a hostile body',
    ).to.deep.equal([]);
    expect(await ctx.models.Lead.count({ where: { account_id: [mine.id, theirs.id] } })).to.equal(leadsBefore);

    // what the log holds of all this: a few small rows per source, never the bodies
    const log = await ctx.db.sequelize.query<{ rows: number; bytes: number; biggest: number }>(
      `SELECT count(*)::int AS rows, coalesce(sum(pg_column_size(i.*)), 0)::int AS bytes,
              coalesce(max(pg_column_size(i.payload)), 0)::int AS biggest
         FROM lead_intake i WHERE account_id IN ($1, $2)`,
      { bind: [mine.id, theirs.id], type: QueryTypes.SELECT },
    );
    expect(log[0].biggest, 'the largest payload kept').to.be.below(12_000);
    expect(log[0].bytes, 'the whole log of both accounts').to.be.below(150_000);
    // the other account's form logged what was sent to it, and only that: the key decides the account
    const foreignRows = await ctx.db.sequelize.query<{ source_id: number }>(
      'SELECT DISTINCT source_id FROM lead_intake WHERE account_id = $1',
      { bind: [theirs.id], type: QueryTypes.SELECT },
    );
    expect(foreignRows.map((r) => r.source_id)).to.deep.equal([theirForm.id]);

    const { body: metrics } = await ctx.metrics.render();
    for (const key of [form.public_key, shops.shopify.key, shops.woocommerce.key, theirForm.public_key, random])
      expect(metrics.includes(key), `${key} in /metrics`).to.equal(false);
  });
});
