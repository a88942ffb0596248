import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { intakeOf, postForm } from '../form-sources.js';
import { login, panelApi } from '../session.js';

/**
 * Issue 41, "no dead ends": a form source's default products and sku mapping are edited in the panel (the leads'
 * products editor), and a form that cannot price a lead says so (docs/lead-sources.md "Cannot price leads").
 */
type Rec = { params: Record<string, unknown> };
const visitor = { full_name: 'Amina Benali', phone: '0612345678', city: 'Casablanca' };

const sourceRows = (accountId: number) =>
  getCtx().db.sequelize.query<{ name: string; default_products: unknown; product_mapping: unknown }>(
    'SELECT name, default_products, product_mapping FROM lead_sources WHERE account_id = $1 ORDER BY id',
    { bind: [accountId], type: QueryTypes.SELECT },
  );

const pricedLeads = (sourceId: number) =>
  getCtx().db.sequelize.query<{ total: number; lines: { sku: string; quantity: number; price: number }[] }>(
    `SELECT l.total::float8 AS total,
            (SELECT json_agg(json_build_object('sku', p.sku, 'quantity', p.quantity, 'price', p.price::float8)
                             ORDER BY p.id)
               FROM lead_products p WHERE p.lead_id = l.id) AS lines
       FROM leads l WHERE l.source_id = $1 ORDER BY l.id`,
    { bind: [sourceId], type: QueryTypes.SELECT },
  );

describe('panel: a form source’s default products and sku mapping', () => {
  const web = useTestServer();

  it('When a seller creates a form source in the panel with default products and a mapping, Then a visitor’s post becomes a priced lead', async () => {
    const acc = await makeAccount(getCtx());
    const [first, second] = acc.skus.active;
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const made = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'form',
      name: 'Priced page',
      'default_products.0.sku': first,
      'default_products.0.quantity': '2',
      'default_products.0.price': '',
      'product_mapping.0.from': 'PAGE.BLUE',
      'product_mapping.0.to': second,
    });
    expect(made.body.record.errors ?? {}).to.deep.equal({});
    const id = made.body.record.params.id;
    expect(await sourceRows(acc.id)).to.deep.equal([
      {
        name: 'Priced page',
        default_products: [{ sku: first, quantity: 2 }],
        product_mapping: { 'PAGE.BLUE': second },
      },
    ]);
    const shown = (await panelApi(c, web.url, 'GET', `lead_sources/records/${id}/show`)).body.record.params;
    expect(JSON.parse(shown.health).state).to.equal('ok');
    expect(shown.pricing).to.equal('priced');
    const choices = await panelApi(c, web.url, 'GET', `lead_sources/actions/productChoices?id=${id}`);
    expect(choices.body.lines).to.deep.equal([{ sku: first, quantity: 2 }]);
    expect(choices.body.mapping).to.deep.equal([{ from: 'PAGE.BLUE', to: second }]);

    const key = String((await getCtx().models.LeadSource.findByPk(id))!.public_key);
    expect((await postForm(web.url, key, visitor)).status).to.equal(201);
    expect((await postForm(web.url, key, { ...visitor, phone: '0612345679', sku: 'PAGE.BLUE' })).status).to.equal(201);

    // the catalogue prices: the first product 100, the second 200 (test/factories.ts)
    expect(await pricedLeads(id)).to.deep.equal([
      { total: 200, lines: [{ sku: first, quantity: 2, price: 100 }] },
      { total: 200, lines: [{ sku: second, quantity: 1, price: 200 }] },
    ]);
    expect((await intakeOf(getCtx(), id)).map((e) => e.outcome)).to.deep.equal(['created', 'created']);
  });

  it('When a form source has no way to price a lead, Then its health says so in the list, the page and REST, and a visitor’s refusal is logged as before', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const made = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', { kind: 'form', name: 'Bare page' });
    const id = made.body.record.params.id;
    const shop = await getCtx().services.sources.create(acc.seller.actor, {
      kind: 'shopify',
      name: 'Shop',
      signing_secret: 'shpss_0123456789abcdef',
    });

    const list = await panelApi(c, web.url, 'GET', 'lead_sources/actions/list');
    const states = Object.fromEntries(
      (list.body.records as Rec[]).map((r) => [r.params.name, JSON.parse(String(r.params.health)).state]),
    );
    expect(states).to.deep.equal({ 'Bare page': 'no_products', Shop: 'ok' });
    const shown = (await panelApi(c, web.url, 'GET', `lead_sources/records/${id}/show`)).body.record.params;
    expect(shown.pricing).to.equal('no_products');
    const rest = await getCtx().services.sources.show(acc.seller.actor, id);
    expect(rest.health).to.deep.equal({ state: 'no_products', received_24h: 0, refused_24h: 0 });
    expect((await getCtx().services.sources.show(acc.seller.actor, shop.id)).health.state).to.equal('ok');

    const key = String((await getCtx().models.LeadSource.findByPk(id))!.public_key);
    const res = await postForm(web.url, key, visitor);
    expect(res.status).to.equal(422);
    const [log] = await intakeOf(getCtx(), id);
    expect(log).to.include({ outcome: 'refused', reason: 'The products field must have at least 1 items.' });

    // a default product deactivated later leaves the form unable to price again
    await panelApi(c, web.url, 'POST', `lead_sources/records/${id}/edit`, {
      name: 'Bare page',
      'default_products.0.sku': acc.skus.active[0],
    });
    expect((await getCtx().services.sources.show(acc.seller.actor, id)).health.state).to.equal('ok');
    await getCtx().models.Product.update({ active: false }, { where: { account_id: acc.id, sku: acc.skus.active[0] } });
    expect((await getCtx().services.sources.show(acc.seller.actor, id)).health.state).to.equal('no_products');
  });

  it('When a default product or a mapping names a sku that is not the account’s active product, Then the error names it in the user’s language and nothing is saved', async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    await getCtx().db.sequelize.query("UPDATE users SET language = 'fr' WHERE id = $1", { bind: [acc.seller.id] });
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const unknown = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'form',
      name: 'Typo page',
      'default_products.0.sku': 'NOPE-1',
      'default_products.1.sku': other.skus.active[0],
    });
    expect(Object.keys(unknown.body.record.errors).sort()).to.deep.equal([
      'default_products.0.sku',
      'default_products.1.sku',
    ]);
    expect(unknown.body.record.errors['default_products.0.sku'].message).to.match(/^Le SKU « NOPE-1 » n'existe pas/);
    expect(unknown.body.record.errors['default_products.1.sku'].message).to.include(other.skus.active[0]);
    expect(await sourceRows(acc.id)).to.deep.equal([]);

    const source = await getCtx().services.sources.create(acc.seller.actor, {
      kind: 'form',
      name: 'Kept page',
      default_products: [{ sku: acc.skus.active[0], quantity: 1 }],
    });
    const badMapping = await panelApi(c, web.url, 'POST', `lead_sources/records/${source.id}/edit`, {
      name: 'Renamed page',
      'default_products.0.sku': acc.skus.active[1],
      'product_mapping.0.from': 'BLUE',
      'product_mapping.0.to': acc.skus.inactive,
    });
    expect(Object.keys(badMapping.body.record.errors)).to.deep.equal(['product_mapping.BLUE']);
    expect(badMapping.body.record.errors['product_mapping.BLUE'].message).to.include(acc.skus.inactive);
    expect(badMapping.status).to.equal(200);
    expect(await sourceRows(acc.id)).to.deep.equal([
      { name: 'Kept page', default_products: [{ sku: acc.skus.active[0], quantity: 1 }], product_mapping: {} },
    ]);

    // another account's source lists nothing of it; a seller's account_id is ignored
    const theirs = await getCtx().services.sources.create(other.seller.actor, { kind: 'form', name: 'Theirs' });
    const foreign = await panelApi(c, web.url, 'GET', `lead_sources/actions/productChoices?id=${theirs.id}`);
    expect(foreign.text).to.not.include(other.skus.active[0]);
    const asked = await panelApi(c, web.url, 'GET', `lead_sources/actions/productChoices?account_id=${other.id}`);
    expect(asked.body.products.map((p: { sku: string }) => p.sku)).to.deep.equal([...acc.skus.active].sort());
  });
});
