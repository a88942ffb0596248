import { expect } from 'chai';
import { SCOPES, type Scope } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { captureSql, leadInsertPlan, useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';

const lead = (acc: TestAccount, over: Record<string, unknown> = {}) => ({
  phone: `+2126${Math.floor(10_000_000 + Math.random() * 89_999_999)}`,
  full_name: 'Amina Benali',
  city: 'Casablanca',
  products: [{ sku: acc.skus.active[0], quantity: 2, price: 150 }],
  ...over,
});

async function leadCount(accountId: number): Promise<number> {
  return getCtx().models.Lead.count({ where: { account_id: accountId } });
}

describe('REST leads', () => {
  const web = useTestServer();

  describe('authentication and scopes', () => {
    it('answers 401 without a token, with a malformed, unknown or revoked one, and ignores ?access_token', async () => {
      const acc = await makeAccount(getCtx());
      const token = await acc.token();
      expect((await restClient(web.url)('GET', '/leads')).body).to.deep.equal({ message: 'Unauthenticated.' });
      expect((await restClient(web.url, 'garbage')('GET', '/leads')).status).to.equal(401);
      expect((await restClient(web.url, `999999|${'x'.repeat(40)}`)('GET', '/leads')).status).to.equal(401);
      const [id] = token.split('|');
      expect((await restClient(web.url, `${id}|${'y'.repeat(40)}`)('GET', '/leads')).status).to.equal(401);
      expect((await restClient(web.url)('GET', `/leads?access_token=${encodeURIComponent(token)}`)).status).to.equal(
        401,
      );
      expect((await restClient(web.url, token)('GET', '/leads')).status).to.equal(200);
      await getCtx().services.tokens.revokeToken(acc.seller.actor, Number(id));
      expect((await restClient(web.url, token)('GET', '/leads')).status).to.equal(401);
    });

    const needs: [string, string, Scope, unknown?][] = [
      ['POST', '/leads', 'CREATE LEADS', { leads: 'not even an array' }],
      ['GET', '/leads', 'VIEW LEADS'],
      ['GET', '/leads/LD0000000000/show', 'VIEW LEADS'],
      ['PUT', '/leads', 'UPDATE LEADS', {}],
      ['DELETE', '/leads', 'DELETE LEADS', {}],
      ['GET', '/lead-histories', 'VIEW LEADS'],
      ['GET', '/order-histories', 'VIEW ORDERS'],
    ];
    for (const [method, path, scope, body] of needs) {
      it(`answers 403 on ${method} ${path} for a token without ${scope}, whatever the body`, async () => {
        const acc = await makeAccount(getCtx());
        const call = restClient(web.url, await acc.token(SCOPES.filter((s) => s !== scope)));
        const res = await call(method, path, body);
        expect(res.status).to.equal(403);
        expect(res.body).to.deep.equal({ message: 'This action is unauthorized.' });
      });
    }
  });

  describe('POST /leads', () => {
    it('creates leads atomically, returns references in request order and writes creation history', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token(['CREATE LEADS'], 'landing'));
      const items = [
        lead(acc, { full_name: 'First One', data: [{ key: 'utm', value: 'fb' }] }),
        lead(acc, {
          full_name: 'Second One',
          products: [
            { sku: acc.skus.active[1], quantity: 3, price: 10.5 },
            { sku: acc.skus.active[2], quantity: 1, price: 99 },
          ],
        }),
      ];
      const res = await call('POST', '/leads', { leads: items });
      expect(res.status).to.equal(201);
      expect(res.body.message).to.equal('2 leads created.');
      expect(res.body.references).to.have.length(2);
      for (const r of res.body.references) expect(r).to.match(/^LD[0-9A-HJKMNP-TV-Z]{10}$/);
      const { Lead, LeadHistory, LeadProduct } = getCtx().models;
      const rows = await Lead.findAll({ where: { account_id: acc.id }, order: [['id', 'ASC']] });
      expect(rows.map((r) => [r.reference, r.full_name, r.status])).to.deep.equal([
        [res.body.references[0], 'First One', 'new'],
        [res.body.references[1], 'Second One', 'new'],
      ]);
      expect(rows[0].data).to.deep.equal([{ key: 'utm', value: 'fb' }]);
      expect(Number(rows[1].total)).to.equal(130.5);
      expect(await LeadProduct.count({ where: { lead_id: rows[1].id } })).to.equal(2);
      const history = await LeadHistory.findAll({ where: { lead_id: rows[0].id } });
      expect(history.map((h) => [h.old_status, h.new_status, h.changed_by])).to.deep.equal([
        [null, 'new', `landing (${acc.seller.name})`],
      ]);
      expect(Date.now() - history[0].changed_at.getTime()).to.be.below(60_000);
    });

    // the phones at the length boundaries are possible numbers: 7 digits are a whole national number in Iceland (the
    // 4th entry is the account's phone_country), and 100 characters is a Moroccan number spaced out
    const boundaries: [string, (acc: TestAccount) => Record<string, unknown>, number, string?][] = [
      ['phone of 6 chars', (a) => lead(a, { phone: '555123' }), 422, 'IS'],
      ['phone of 7 chars', (a) => lead(a, { phone: '5551234' }), 201, 'IS'],
      ['phone of 100 chars', (a) => lead(a, { phone: `+212${' '.repeat(87)}600000002` }), 201],
      ['phone of 101 chars', (a) => lead(a, { phone: `+212${' '.repeat(88)}600000002` }), 422],
      ['full_name of 2 chars', (a) => lead(a, { full_name: 'Al' }), 422],
      ['full_name of 3 chars', (a) => lead(a, { full_name: 'Ali' }), 201],
      ['full_name of 100 chars', (a) => lead(a, { full_name: 'A'.repeat(100) }), 201],
      ['full_name of 101 chars', (a) => lead(a, { full_name: 'A'.repeat(101) }), 422],
      ['city of 2 chars', (a) => lead(a, { city: 'Fe' }), 422],
      ['city of 3 chars', (a) => lead(a, { city: 'Fes' }), 201],
      ['city of 101 chars', (a) => lead(a, { city: 'C'.repeat(101) }), 422],
      ['area of 2 chars', (a) => lead(a, { area: 'ab' }), 422],
      ['area of 100 chars', (a) => lead(a, { area: 'a'.repeat(100) }), 201],
      ['address of 4 chars', (a) => lead(a, { address: 'abcd' }), 422],
      ['address of 5 chars', (a) => lead(a, { address: 'abcde' }), 201],
      ['address of 101 chars', (a) => lead(a, { address: 'a'.repeat(101) }), 422],
      [
        '100 data pairs',
        (a) => lead(a, { data: Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: 'v' })) }),
        201,
      ],
      [
        '101 data pairs',
        (a) => lead(a, { data: Array.from({ length: 101 }, (_, i) => ({ key: `k${i}`, value: 'v' })) }),
        422,
      ],
      ['data key of 101 chars', (a) => lead(a, { data: [{ key: 'k'.repeat(101), value: 'v' }] }), 422],
      ['data value of 100 chars', (a) => lead(a, { data: [{ key: 'k', value: 'v'.repeat(100) }] }), 201],
      ['no products', (a) => lead(a, { products: [] }), 422],
      [
        '100 products',
        (a) =>
          lead(a, { products: Array.from({ length: 100 }, () => ({ sku: a.skus.active[0], quantity: 1, price: 1 })) }),
        201,
      ],
      [
        '101 products',
        (a) =>
          lead(a, { products: Array.from({ length: 101 }, () => ({ sku: a.skus.active[0], quantity: 1, price: 1 })) }),
        422,
      ],
      ['quantity 0', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 0, price: 10 }] }), 422],
      ['quantity 1', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1, price: 10 }] }), 201],
      ['quantity 999', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 999, price: 10 }] }), 201],
      ['quantity 1000', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1000, price: 10 }] }), 422],
      ['price 0', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1, price: 0 }] }), 422],
      ['price 1', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1, price: 1 }] }), 201],
      ['price 999,999', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1, price: 999_999 }] }), 201],
      [
        'price 1,000,000',
        (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1, price: 1_000_000 }] }),
        422,
      ],
      [
        'missing phone',
        (a) => {
          const { phone: _p, ...rest } = lead(a);
          return rest;
        },
        422,
      ],
      ['missing products[].price', (a) => lead(a, { products: [{ sku: a.skus.active[0], quantity: 1 }] }), 422],
    ];
    for (const [name, build, status, phoneCountry] of boundaries) {
      it(`answers ${status} for ${name}${status === 422 ? ' and writes nothing' : ''}`, async () => {
        const acc = await makeAccount(getCtx());
        if (phoneCountry)
          await getCtx().services.accounts.updateAccount(acc.seller.actor, acc.id, { phone_country: phoneCountry });
        const res = await restClient(web.url, await acc.token())('POST', '/leads', { leads: [build(acc)] });
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        if (status === 422) {
          expect(Object.keys(res.body.errors)[0]).to.match(/^leads\.0\./);
          expect(await leadCount(acc.id)).to.equal(0);
        } else {
          expect(await leadCount(acc.id)).to.equal(1);
        }
      });
    }

    it('accepts 1,000 leads and rejects 1,001 with nothing written', async function () {
      this.timeout(60_000);
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const items = Array.from({ length: 1001 }, () => lead(acc));
      const over = await call('POST', '/leads', { leads: items });
      expect(over.status).to.equal(422);
      expect(over.body.errors).to.have.property('leads');
      expect(await leadCount(acc.id)).to.equal(0);
      const ok = await call('POST', '/leads', { leads: items.slice(0, 1000) });
      expect(ok.status).to.equal(201);
      expect(ok.body.references).to.have.length(1000);
      expect(await leadCount(acc.id)).to.equal(1000);
    });

    it('rejects the whole batch when one sku is inactive, unknown, of another account or of another case, naming it', async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const [a] = acc.skus.active;
      const huge = `${'Z'.repeat(100)}`;
      const cases: [string, string][] = [
        [acc.skus.inactive, `Sku '${acc.skus.inactive}' belongs to an inactive product.`],
        [other.skus.active[0], `Sku '${other.skus.active[0]}' does not exist.`],
        ['NO-SUCH-SKU', "Sku 'NO-SUCH-SKU' does not exist."],
        [a.toLowerCase(), `Sku '${a.toLowerCase()}' does not exist; did you mean '${a}'?`],
        [
          acc.skus.inactive.toLowerCase(),
          `Sku '${acc.skus.inactive.toLowerCase()}' does not exist; did you mean '${acc.skus.inactive}'?`,
        ],
        [huge, `Sku '${'Z'.repeat(60)}…' does not exist.`],
      ];
      for (const [sku, message] of cases) {
        const res = await call('POST', '/leads', {
          leads: [
            lead(acc),
            lead(acc, {
              products: [
                { sku: a, quantity: 1, price: 5 },
                { sku, quantity: 1, price: 5 },
              ],
            }),
          ],
        });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.equal({ message, errors: { 'leads.1.products.1.sku': [message] } });
        const order = await call('POST', '/orders', {
          orders: [lead(acc, { products: [{ sku, quantity: 1, price: 5 }] })],
        });
        expect(order.status).to.equal(422);
        expect(order.body).to.deep.equal({ message, errors: { 'orders.0.products.0.sku': [message] } });
      }
      expect(await leadCount(acc.id)).to.equal(0);
      expect(await getCtx().models.Order.count({ where: { account_id: acc.id } })).to.equal(0);
    });

    it('summarises several errors in the Laravel message shape', async () => {
      const acc = await makeAccount(getCtx());
      const res = await restClient(web.url, await acc.token())('POST', '/leads', {
        leads: [{ phone: '1', full_name: 'x', products: [] }],
      });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal('The leads.0.phone field must be at least 7 characters. (and 2 more errors)');
      expect(res.body.errors).to.have.all.keys('leads.0.phone', 'leads.0.full_name', 'leads.0.products');
    });

    it('marks a lead whose phone the account saw within 30 days as duplicate, recorded by system', async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      await call('POST', '/leads', { leads: [lead(acc, { phone: '+212 600-111-222' })] });
      await restClient(web.url, await other.token())('POST', '/leads', {
        leads: [lead(other, { phone: '+212600111333' })],
      });
      const res = await call('POST', '/leads', {
        leads: [
          lead(acc, { phone: '+212600111222' }),
          lead(acc, { phone: '+212600111333' }),
          lead(acc, { phone: '+212600111333' }),
        ],
      });
      const { Lead, LeadHistory } = getCtx().models;
      const rows = await Promise.all(
        res.body.references.map((reference: string) => Lead.findOne({ where: { account_id: acc.id, reference } })),
      );
      expect(rows.map((r) => r!.status)).to.deep.equal(['duplicate', 'new', 'duplicate']);
      const h = await LeadHistory.findOne({ where: { lead_id: rows[0]!.id } });
      expect([h!.old_status, h!.new_status, h!.changed_by]).to.deep.equal([null, 'duplicate', 'system']);
      await Lead.update(
        { created_at: new Date(Date.now() - 31 * 86_400_000) },
        { where: { account_id: acc.id }, silent: true },
      );
      const later = await call('POST', '/leads', { leads: [lead(acc, { phone: '+212600111222' })] });
      expect(
        (await Lead.findOne({ where: { account_id: acc.id, reference: later.body.references[0] } }))!.status,
        'seen 31 days ago only',
      ).to.equal('new');
    });

    it('writes 1,000 leads × 3 products and 10 × 100 with the same small number of statements', async function () {
      this.timeout(60_000);
      const acc = await makeAccount(getCtx());
      const count = async (items: unknown[]) => {
        const { sequelize } = getCtx().db;
        const create = () => getCtx().services.leads.createMany(acc.seller.actor, { leads: items });
        return (await captureSql(sequelize, create)).sent.length;
      };
      const big = await count(
        Array.from({ length: 1000 }, () =>
          lead(acc, { products: acc.skus.active.map((sku) => ({ sku, quantity: 1, price: 5 })) }),
        ),
      );
      const wide = await count(
        Array.from({ length: 10 }, () =>
          lead(acc, {
            products: Array.from({ length: 100 }, () => ({ sku: acc.skus.active[1], quantity: 1, price: 5 })),
          }),
        ),
      );
      // the 1,000 leads also wake the statistics job (one statement: src/db/table-statistics.ts)
      expect(big).to.equal(wide + 1);
      expect(big).to.be.below(12);
      expect(await getCtx().models.LeadProduct.count({ where: { account_id: acc.id } })).to.equal(4000);
    });

    it('plans the insert without bitmap scans, so no trigram index can serve its duplicate check', async function () {
      // pg_trgm's GIN indexes answer equality too, and only through bitmap scans. PostgreSQL 15, with statistics giving
      // an account some thousands of leads, planned the duplicate check as one leads_phone_trgm_idx probe per phone
      // (≈ 15 ms each, 78 s for a 5,000-lead batch; see docs/performance.md). Here plain index scans are made
      // unattractive before the insert's own settings apply, which would otherwise leave only bitmap scans.
      this.timeout(60_000);
      const acc = await makeAccount(getCtx());
      const { sequelize } = getCtx().db;
      await getCtx().services.leads.createMany(acc.seller.actor, {
        leads: Array.from({ length: 50 }, (_, i) => lead(acc, { phone: `+2127${String(i).padStart(8, '0')}` })),
      });
      const { sent } = await captureSql(sequelize, () =>
        getCtx().services.leads.createMany(acc.seller.actor, {
          leads: Array.from({ length: 100 }, (_, i) => lead(acc, { phone: `+2127${String(i * 3).padStart(8, '0')}` })),
        }),
      );
      const plan = await leadInsertPlan(
        sequelize,
        sent,
        'SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off',
      );
      expect(plan).to.include('Scan on leads');
      expect(plan).not.to.match(/Bitmap|trgm/);
    });
  });

  describe('GET /leads and show', () => {
    it('lists newest first in the paginator envelope, with working links', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const created = (
        await call('POST', '/leads', {
          leads: Array.from({ length: 5 }, (_, i) => lead(acc, { full_name: `Lead number ${i}` })),
        })
      ).body.references;
      await getCtx().models.Lead.update(
        { created_at: new Date(Date.now() - 3600_000) },
        { where: { reference: created[0] } },
      );
      const p1 = await call('GET', '/leads?per_page=2');
      expect(p1.status).to.equal(200);
      expect(p1.body.meta).to.include({ current_page: 1, per_page: 2, total: 5, last_page: 3, from: 1, to: 2 });
      expect(p1.body.links.prev).to.equal(null);
      expect(p1.body.links.next).to.match(/\/api\/web\/1\.0\/leads\?per_page=2&page=2$/);
      expect(Object.keys(p1.body.data[0])).to.have.members([
        'reference',
        'full_name',
        'phone',
        'city',
        'status',
        'created_at',
      ]);
      const p3 = await restClient(web.url, await acc.token())(
        'GET',
        new URL(p1.body.links.last).pathname.replace('/api/web/1.0', '') + new URL(p1.body.links.last).search,
      );
      expect(p3.body.data.map((d: { reference: string }) => d.reference)).to.deep.equal([created[0]]);
      expect(p3.body.links.next).to.equal(null);
      expect(p3.body.links.prev).to.match(/page=2$/);
    });

    it('searches by reference, phone digits, name and city, and validates search_by and per_page', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs = (
        await call('POST', '/leads', {
          leads: [
            lead(acc, { phone: '+212 611-223344', full_name: 'Youssef Alaoui', city: 'Marrakesh' }),
            lead(acc, { phone: '0699887766', full_name: 'Sara Idrissi', city: 'Rabat' }),
          ],
        })
      ).body.references;
      const find = async (q: string) =>
        (await call('GET', `/leads?${q}`)).body.data.map((d: { reference: string }) => d.reference);
      expect(await find(`search_by=reference&keyWord=${refs[1]}`)).to.deep.equal([refs[1]]);
      expect(await find('search_by=phone&keyWord=1122')).to.deep.equal([refs[0]]);
      expect(await find('search_by=full_name&keyWord=sara')).to.deep.equal([refs[1]]);
      expect(await find('search_by=city&keyWord=MARRA')).to.deep.equal([refs[0]]);
      expect((await call('GET', '/leads?search_by=email&keyWord=x')).status).to.equal(422);
      expect((await call('GET', '/leads?per_page=101')).status).to.equal(422);
      expect((await call('GET', '/leads?per_page=100')).status).to.equal(200);
    });

    it('never shows another account: its leads are absent from the list and its reference is 404 on show', async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const otherRef = (
        await restClient(web.url, await other.token())('POST', '/leads', {
          leads: [lead(other, { full_name: 'Hidden Person' })],
        })
      ).body.references[0];
      const call = restClient(web.url, await acc.token());
      const list = await call('GET', `/leads?search_by=reference&keyWord=${otherRef}`);
      expect(list.body.meta.total).to.equal(0);
      expect((await call('GET', '/leads')).body.meta.total).to.equal(0);
      const show = await call('GET', `/leads/${otherRef}/show`);
      expect(show.status).to.equal(404);
      expect(show.body).to.deep.equal({ message: 'Not found.' });
      expect((await call('GET', '/leads/LDNOSUCHLEAD/show')).status).to.equal(404);
    });

    it('shows one lead with products, data, total, order reference and history', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const [ref] = (
        await call('POST', '/leads', {
          leads: [
            lead(acc, { area: 'Maarif', address: '12 Rue Atlas', data: [{ key: 'utm_source', value: 'tiktok' }] }),
          ],
        })
      ).body.references;
      const res = await call('GET', `/leads/${ref}/show`);
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({
        reference: ref,
        full_name: 'Amina Benali',
        city: 'Casablanca',
        area: 'Maarif',
        address: '12 Rue Atlas',
        status: 'new',
        total: 300,
        order_reference: null,
        action_date: null,
      });
      expect(res.body.data.products).to.deep.equal([
        { sku: acc.skus.active[0], name: `Product ${acc.skus.active[0]}`, quantity: 2, price: 150, available: 0 },
      ]);
      expect(res.body.data.data).to.deep.equal([{ key: 'utm_source', value: 'tiktok' }]);
      expect(res.body.data.history).to.have.length(1);
      expect(res.body.data).to.not.have.any.keys('id', 'account_id');
    });
  });

  describe('PUT /leads', () => {
    it('updates statuses with history (old, new, actor, time); same status again writes no history', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token(SCOPES.slice(), 'crm'));
      const refs = (await call('POST', '/leads', { leads: [lead(acc), lead(acc)] })).body.references;
      const res = await call('PUT', '/leads', {
        leads: [
          { reference: refs[0], status: 'call_later', action_date: '2030-12-01T14:30:00+01:00' },
          { reference: refs[1], status: 'no_answer' },
        ],
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ message: '2 leads updated.', updated: 2, orders: [] });
      const { Lead, LeadHistory } = getCtx().models;
      const l0 = await Lead.findOne({ where: { reference: refs[0] } });
      expect(l0!.status).to.equal('call_later');
      expect(l0!.action_date!.toISOString()).to.equal('2030-12-01T13:30:00.000Z');
      const h = await LeadHistory.findAll({ where: { lead_id: l0!.id }, order: [['id', 'ASC']] });
      expect(h.map((x) => [x.old_status, x.new_status, x.changed_by])).to.deep.equal([
        [null, 'new', `crm (${acc.seller.name})`],
        ['new', 'call_later', `crm (${acc.seller.name})`],
      ]);
      await call('PUT', '/leads', {
        leads: [{ reference: refs[0], status: 'call_later', action_date: '2030-12-02T09:00:00+00:00' }],
      });
      expect(await LeadHistory.count({ where: { lead_id: l0!.id } })).to.equal(2);
      expect((await Lead.findByPk(l0!.id))!.action_date!.toISOString()).to.equal('2030-12-02T09:00:00.000Z');
    });

    it('requires a well-formed action_date for call_later, in every ISO 8601 offset form, Z included', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/leads', { leads: [lead(acc)] })).body.references;
      for (const item of [
        { reference: ref, status: 'call_later' },
        { reference: ref, status: 'call_later', action_date: '2030-12-01 14:30' },
        { reference: ref, status: 'call_later', action_date: '2030-12-01T14:30:00' },
        { reference: ref, status: 'call_later', action_date: '2030-12-01T14:30:00+25:00' },
      ]) {
        const res = await call('PUT', '/leads', { leads: [item] });
        expect(res.status).to.equal(422);
        expect(res.body.errors).to.have.property('leads.0.action_date');
      }
      const bogus = await call('PUT', '/leads', { leads: [{ reference: ref, status: 'bogus' }] });
      const allowed = 'new, confirmed, wrong, call_later, no_answer, duplicate, canceled';
      expect(bogus.body.errors).to.deep.equal({
        'leads.0.status': [`The leads.0.status 'bogus' is not one of: ${allowed}.`],
      });
      expect((await getCtx().models.Lead.findOne({ where: { reference: ref } }))!.status).to.equal('new');
      const at = new Date(Date.now() + 86_400_000);
      const forms: [string, Date][] = [
        [at.toISOString(), at],
        ['2030-12-01T14:30:00Z', new Date('2030-12-01T14:30:00Z')],
        ['2030-12-01T14:30:00+01:00', new Date('2030-12-01T13:30:00Z')],
        ['2030-12-01T14:30:00+0100', new Date('2030-12-01T13:30:00Z')],
        ['2030-12-01T14:30:00-05', new Date('2030-12-01T19:30:00Z')],
      ];
      for (const [action_date, stored] of forms) {
        const res = await call('PUT', '/leads', { leads: [{ reference: ref, status: 'call_later', action_date }] });
        expect(res.status, `${action_date}: ${JSON.stringify(res.body)}`).to.equal(200);
        const row = await getCtx().models.Lead.findOne({ where: { reference: ref } });
        expect(row!.action_date!.toISOString(), action_date).to.equal(stored.toISOString());
      }
    });

    it("refuses a call-back in the past, naming the value under the item's action_date, changing nothing", async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/leads', { leads: [lead(acc), lead(acc)] })).body.references;
      const past = new Date(Date.now() - 60_000).toISOString();
      const res = await call('PUT', '/leads', {
        leads: [
          { reference: refs[0], status: 'no_answer' },
          { reference: refs[1], status: 'call_later', action_date: past },
        ],
      });
      expect(res.status).to.equal(422);
      const message = `The leads.1.action_date '${past}' is in the past: a call-back must be after now.`;
      expect(res.body).to.deep.equal({ message, errors: { 'leads.1.action_date': [message] } });
      const rows = await getCtx().models.Lead.findAll({ where: { reference: refs } });
      expect(rows.map((r) => [r.status, r.action_date])).to.deep.equal([
        ['new', null],
        ['new', null],
      ]);
    });

    it("rejects the whole batch when a reference is unknown or another account's, changing nothing", async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const [otherRef] = (await restClient(web.url, await other.token())('POST', '/leads', { leads: [lead(other)] }))
        .body.references;
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/leads', { leads: [lead(acc)] })).body.references;
      const res = await call('PUT', '/leads', {
        leads: [
          { reference: ref, status: 'wrong' },
          { reference: otherRef, status: 'wrong' },
        ],
      });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({ 'leads.1.reference': ['The selected leads.1.reference is invalid.'] });
      const { Lead } = getCtx().models;
      expect((await Lead.findOne({ where: { reference: ref } }))!.status).to.equal('new');
      expect((await Lead.findOne({ where: { reference: otherRef } }))!.status).to.equal('new');
      expect(
        (
          await call('PUT', '/leads', {
            leads: Array.from({ length: 1001 }, () => ({ reference: ref, status: 'wrong' })),
          })
        ).status,
      ).to.equal(422);
    });

    it('creates the order of a confirmed lead exactly once, also after a round trip', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/leads', { leads: [lead(acc)] })).body.references;
      const first = await call('PUT', '/leads', { leads: [{ reference: ref, status: 'confirmed' }] });
      await call('PUT', '/leads', { leads: [{ reference: ref, status: 'canceled' }] });
      const again = await call('PUT', '/leads', { leads: [{ reference: ref, status: 'confirmed' }] });
      const { Order, OrderProduct, OrderHistory } = getCtx().models;
      const orders = await Order.findAll({ where: { account_id: acc.id } });
      expect(orders).to.have.length(1);
      // the answer names the order the confirmation created; the second confirmation created none
      expect(first.body.orders).to.deep.equal([{ reference: ref, order_reference: orders[0].reference }]);
      expect(again.body).to.deep.equal({ message: '1 lead updated.', updated: 1, orders: [] });
      expect(orders[0]).to.include({ lead_reference: ref, status: 'new', full_name: 'Amina Benali' });
      expect(orders[0].reference).to.match(/^OR[0-9A-Z]{10}$/);
      expect(await OrderProduct.count({ where: { order_id: orders[0].id } })).to.equal(1);
      expect(await OrderHistory.count({ where: { order_id: orders[0].id } })).to.equal(1);
      expect((await call('GET', `/leads/${ref}/show`)).body.data.order_reference).to.equal(orders[0].reference);
    });

    it('answers, per lead its confirmation turned into an order, the order reference, in request order', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs: string[] = (await call('POST', '/leads', { leads: [lead(acc), lead(acc), lead(acc)] })).body
        .references;
      const res = await call('PUT', '/leads', {
        leads: [
          { reference: refs[2].toLowerCase(), status: 'confirmed' },
          { reference: refs[0], status: 'no_answer' },
          { reference: refs[1], status: 'confirmed' },
        ],
      });
      expect(res.status).to.equal(200);
      expect(res.body.updated).to.equal(3);
      const orderOf = async (ref: string) =>
        (await getCtx().models.Order.findOne({ where: { account_id: acc.id, lead_reference: ref } }))!.reference;
      expect(res.body.orders).to.deep.equal([
        { reference: refs[2], order_reference: await orderOf(refs[2]) },
        { reference: refs[1], order_reference: await orderOf(refs[1]) },
      ]);
      for (const o of res.body.orders)
        expect((await call('GET', `/orders/${o.order_reference}/show`)).body.data.lead_reference).to.equal(o.reference);
    });

    it('creates one order when the same lead is confirmed by concurrent requests', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const [ref] = (await call('POST', '/leads', { leads: [lead(acc)] })).body.references;
      const results = await Promise.all(
        Array.from({ length: 5 }, () => call('PUT', '/leads', { leads: [{ reference: ref, status: 'confirmed' }] })),
      );
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
      expect(results.flatMap((r) => r.body.orders)).to.have.length(1);
      expect(await getCtx().models.Order.count({ where: { account_id: acc.id } })).to.equal(1);
      expect(
        await getCtx().models.LeadHistory.count({ where: { lead_reference: ref, new_status: 'confirmed' } }),
      ).to.equal(1);
    });
  });

  describe('DELETE /leads', () => {
    it('refuses to delete a confirmed lead and deletes nothing of the batch', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/leads', { leads: [lead(acc), lead(acc)] })).body.references;
      await call('PUT', '/leads', { leads: [{ reference: refs[1], status: 'confirmed' }] });
      const res = await call('DELETE', '/leads', { references: refs });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.have.all.keys('references.1');
      expect(await leadCount(acc.id)).to.equal(2);
    });

    it("deletes leads with their history and products; another account's reference is 422", async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const [otherRef] = (await restClient(web.url, await other.token())('POST', '/leads', { leads: [lead(other)] }))
        .body.references;
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/leads', { leads: [lead(acc), lead(acc), lead(acc)] })).body.references;
      expect((await call('DELETE', '/leads', { references: [refs[0], otherRef] })).status).to.equal(422);
      expect(await leadCount(other.id)).to.equal(1);
      const res = await call('DELETE', '/leads', { references: refs.slice(0, 2) });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ message: '2 leads deleted.', deleted: 2 });
      const { LeadHistory, LeadProduct } = getCtx().models;
      expect(await leadCount(acc.id)).to.equal(1);
      expect(await LeadHistory.count({ where: { account_id: acc.id } })).to.equal(1);
      expect(await LeadProduct.count({ where: { account_id: acc.id } })).to.equal(1);
    });
  });

  describe('histories', () => {
    it('lists lead and order history newest first, filtered by reference and since, scoped to the account', async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      const otherRef = (await restClient(web.url, await other.token())('POST', '/leads', { leads: [lead(other)] })).body
        .references[0];
      const call = restClient(web.url, await acc.token());
      const refs = (await call('POST', '/leads', { leads: [lead(acc), lead(acc)] })).body.references;
      const before = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      await call('PUT', '/leads', { leads: [{ reference: refs[0], status: 'confirmed' }] });
      const all = await call('GET', '/lead-histories?per_page=10');
      expect(all.status).to.equal(200);
      expect(all.body.meta.total).to.equal(3);
      expect(all.body.data[0]).to.include({ lead_reference: refs[0], old_status: 'new', new_status: 'confirmed' });
      expect(Object.keys(all.body.data[0])).to.have.members([
        'lead_reference',
        'old_status',
        'new_status',
        'changed_by',
        'changed_at',
      ]);
      const byRef = await call('GET', `/lead-histories?lead_reference=${refs[1].toLowerCase()}`);
      expect(byRef.body.meta.total).to.equal(1);
      expect(byRef.body.data[0]).to.include({ lead_reference: refs[1], new_status: 'new' });
      expect((await call('GET', `/lead-histories?lead_reference=${otherRef}`)).body.meta.total).to.equal(0);
      expect((await call('GET', `/lead-histories?since=${encodeURIComponent(before)}`)).body.meta.total).to.equal(1);
      const orders = await call('GET', '/order-histories');
      expect(orders.body.meta.total).to.equal(1);
      expect(orders.body.data[0]).to.include({ old_status: null, new_status: 'new' });
      expect(orders.body.data[0].order_reference).to.match(/^OR/);
      expect(
        (await call('GET', `/order-histories?order_reference=${orders.body.data[0].order_reference}`)).body.meta.total,
      ).to.equal(1);
      expect((await call('GET', '/order-histories?order_reference=OR0000000000')).body.meta.total).to.equal(0);
      expect((await call('GET', '/lead-histories?per_page=101')).status).to.equal(422);
    });
  });

  describe('HTTP edges', () => {
    it('answers malformed JSON 400, an oversized body 413, unknown routes 404 and wrong methods 405, all JSON', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const bad = await call('POST', '/leads', '{"leads": [');
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.equal({ message: 'Malformed JSON body.' });
      const big = await call('POST', '/leads', JSON.stringify({ leads: [], pad: 'x'.repeat(6 * 1024 * 1024) }));
      expect(big.status).to.equal(413);
      expect(big.body).to.deep.equal({ message: 'The request body is too large.' });
      expect((await call('GET', '/nothing-here')).body).to.deep.equal({ message: 'Not found.' });
      const wrong = await call('PATCH', '/leads', {});
      expect(wrong.status).to.equal(405);
      expect(wrong.body.message).to.be.a('string');
    });

    it('serves the OpenAPI 3.1 document and a docs page built from it', async () => {
      const doc = await (await fetch(`${web.url}/api/web/1.0/openapi.json`)).json();
      expect(doc.openapi).to.equal('3.1.0');
      expect(
        doc.paths['/leads'].post.requestBody.content['application/json'].schema.properties.leads.maxItems,
      ).to.equal(1000);
      expect(doc.paths['/leads'].get.parameters.map((p: { name: string }) => p.name)).to.include.members([
        'search_by',
        'keyWord',
        'per_page',
      ]);
      const page = await fetch(`${web.url}/api/docs`);
      expect(page.headers.get('content-type')).to.match(/text\/html/);
      const html = await page.text();
      expect(html).to.include('/api/web/1.0/openapi.json');
      // the renderer is served from this origin, with the page's start script as a file (no inline script)
      for (const src of [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((m) => m[1])) {
        expect(src).to.match(/^\/api\/docs\//);
        const asset = await fetch(`${web.url}${src}`);
        expect(asset.status, src).to.equal(200);
        expect(asset.headers.get('content-type'), src).to.match(/javascript|css/);
      }
      expect(html).to.not.match(/<script>/);
    });
  });
});
