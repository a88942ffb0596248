import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { systemActor } from '../../src/actor.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { postCallback, serveLocal, useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login, panelApi } from '../session.js';

const SECRET = 'carrier-secret-0123456789';

async function newOrder(acc: TestAccount): Promise<string> {
  const { references } = await getCtx().services.orders.createMany(acc.seller.actor, {
    orders: [
      {
        phone: '+212600111222',
        full_name: 'Some Buyer',
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
      },
    ],
  });
  return references[0];
}

const orderOf = (reference: string) => getCtx().models.Order.findOne({ where: { reference } });

describe("carrier answers and callbacks: the carrier's secrets and replays", function () {
  this.timeout(60_000);
  const web = useTestServer();

  it('When a carrier echoes its API key or HMAC secret in the tracking number, Then neither is stored nor shown, the rest is', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const apiKey = 'echoed-api-key-7f3a9c2e';
    const carrier = await serveLocal((req, res) => {
      const key = String(req.headers['x-api-key']);
      res.end(JSON.stringify({ tracking_number: `TRK-${key}-${SECRET}-END` }));
    });
    try {
      await ctx.services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code: 'echo',
        name: 'Echo',
        endpoint_url: carrier.url('/orders'),
        api_key: apiKey,
        hmac_secret: SECRET,
      });
      const reference = await newOrder(acc);
      await ctx.services.orders.push(acc.seller.actor, { references: [reference], shipping_company: 'echo' });
      const order = (await orderOf(reference))!;
      expect(await ctx.services.orders.pushOne(order.id, 'test', null)).to.equal('sent');
      expect((await orderOf(reference))!.tracking_number).to.equal('TRK-[secret]-[secret]-END');
      const shown = await restClient(web.url, await acc.token())(
        'GET',
        `/orders?search_by=reference&keyWord=${reference}`,
      );
      expect(JSON.stringify(shown.body)).to.include('TRK-[secret]-[secret]-END').and.not.include(apiKey);
      const stored = await ctx.db.sequelize.query<{ row: string }>(
        'SELECT o::text AS row FROM orders o WHERE reference = :reference',
        { replacements: { reference }, type: QueryTypes.SELECT },
      );
      expect(stored[0].row).to.not.include(apiKey).and.not.include(SECRET);
    } finally {
      await carrier.close();
    }
  });

  it('When a carrier echoes its API key changed (letter case, URL-encoded, base64, hex, cut short), Then no form of it is stored', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const apiKey = 'Key-Secret-ab.cd/ef+12';
    const echoes = [
      apiKey.toUpperCase(),
      encodeURIComponent(apiKey),
      Buffer.from(apiKey).toString('base64'),
      Buffer.from(apiKey).toString('hex'),
      apiKey.slice(0, -3),
    ];
    let echo = '';
    const carrier = await serveLocal((_req, res) => res.end(JSON.stringify({ tracking_number: `TRK-${echo}-9` })));
    try {
      const company = { account_id: acc.id, code: 'echo2', name: 'Echo 2', endpoint_url: carrier.url('/orders') };
      await ctx.services.shipping.createCompany(systemActor(), { ...company, api_key: apiKey, hmac_secret: SECRET });
      for (echo of echoes) {
        const reference = await newOrder(acc);
        await ctx.services.orders.push(acc.seller.actor, { references: [reference], shipping_company: 'echo2' });
        expect(await ctx.services.orders.pushOne((await orderOf(reference))!.id, 'test', null)).to.equal('sent');
        expect((await orderOf(reference))!.tracking_number, echo).to.equal('TRK-[secret]-9');
      }
    } finally {
      await carrier.close();
    }
  });

  it('When a carrier is saved with an API key under ten characters, Then the panel (new, edit) and the service refuse it on api_key', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const fields = { code: 'shortkey', name: 'Short Key', endpoint_url: 'http://127.0.0.1:9/s', hmac_secret: SECRET };
    const made = await panelApi(seller, web.url, 'POST', 'shipping_companies/actions/new', { ...fields, api_key: 'K' });
    expect(made.body.record.errors, made.text).to.have.all.keys('api_key');
    expect(made.body.record.errors.api_key.message).to.equal('API key must be at least 10 characters');
    const ok = await ctx.services.shipping.createCompany(systemActor(), {
      ...fields,
      account_id: acc.id,
      api_key: 'long-enough-key',
    });
    const edited = await panelApi(seller, web.url, 'POST', `shipping_companies/records/${ok.id}/edit`, {
      api_key: 'K123',
    });
    expect(edited.body.record.errors, edited.text).to.have.all.keys('api_key');
    const refused = await ctx.services.shipping
      .updateCompany(systemActor(), ok.id, { api_key: 'K' } as never)
      .catch((e: { errors?: object }) => e.errors);
    expect(refused).to.deep.equal({ api_key: ['The api_key field must be at least 10 characters.'] });
    expect((await ctx.models.ShippingCompany.findByPk(ok.id))!.api_key).to.equal('long-enough-key');
  });

  it('When a carrier stored before that rule has a one-character API key, Then a pushed tracking number TRK1 is kept intact', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    let tracking = 'TRK1';
    const carrier = await serveLocal((_req, res) => res.end(JSON.stringify({ tracking_number: tracking })));
    try {
      const company = { account_id: acc.id, code: 'onechar', name: 'One Char', endpoint_url: carrier.url('/orders') };
      const c = await ctx.services.shipping.createCompany(systemActor(), { ...company, hmac_secret: SECRET });
      await ctx.models.ShippingCompany.update({ api_key: 'K' }, { where: { id: c.id } }); // as saved before the rule
      for (const [echo, kept] of [
        ['TRK1', 'TRK1'],
        ['k', '[secret]'], // the whole answer is the key: still an echo
      ]) {
        tracking = echo;
        const reference = await newOrder(acc);
        await ctx.services.orders.push(acc.seller.actor, { references: [reference], shipping_company: 'onechar' });
        expect(await ctx.services.orders.pushOne((await orderOf(reference))!.id, 'test', null)).to.equal('sent');
        expect((await orderOf(reference))!.tracking_number, echo).to.equal(kept);
      }
    } finally {
      await carrier.close();
    }
  });

  describe('a signed callback replayed within its window', () => {
    async function pushedOrder(code: string) {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const company = await ctx.services.shipping.createCompany(systemActor(), {
        account_id: acc.id,
        code,
        name: code,
        endpoint_url: 'http://127.0.0.1:9/x',
        hmac_secret: SECRET,
      });
      const reference = await newOrder(acc);
      await ctx.models.Order.update(
        { status: 'pushed', push_state: 'sent', shipping_company_id: company.id },
        { where: { reference } },
      );
      return { company, reference };
    }

    it('When the same signed callback arrives again, Then it is refused with 409 and changes nothing', async () => {
      const { company, reference } = await pushedOrder('replayed');
      const at = Math.floor(Date.now() / 1000);
      const body = { orders: [{ reference, status: 'shipped' }] };
      const first = await postCallback(web.url, 'replayed', company.id, SECRET, body, at);
      expect(first.status).to.equal(200);
      const after = (await orderOf(reference))!;
      const histories = await getCtx().models.OrderHistory.count({ where: { order_reference: reference } });
      await new Promise((r) => setTimeout(r, 20));
      const again = await postCallback(web.url, 'replayed', company.id, SECRET, body, at);
      expect(again.status).to.equal(409);
      expect(await again.json()).to.deep.equal({ message: 'This callback was already received (same signature).' });
      const now = (await orderOf(reference))!;
      expect(now.updated_at.toISOString()).to.equal(after.updated_at.toISOString());
      expect(await getCtx().models.OrderHistory.count({ where: { order_reference: reference } })).to.equal(histories);
      // a new callback (new timestamp, so a new signature) is applied
      const next = await postCallback(
        web.url,
        'replayed',
        company.id,
        SECRET,
        { orders: [{ reference, status: 'delivered' }] },
        at + 1,
      );
      expect(next.status).to.equal(200);
      expect((await orderOf(reference))!.status).to.equal('delivered');
    });

    it('When copies of one callback arrive at once, Then exactly one is applied and the others answer 409', async () => {
      const { company, reference } = await pushedOrder('raced');
      const at = Math.floor(Date.now() / 1000);
      const body = { orders: [{ reference, status: 'shipped' }] };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => postCallback(web.url, 'raced', company.id, SECRET, body, at)),
      );
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409, 409, 409, 409, 409, 409, 409]);
      const histories = await getCtx().models.OrderHistory.count({ where: { order_reference: reference } });
      expect(histories).to.equal(2); // created, then shipped once
    });

    it('When a callback is refused (unknown order), Then it is not recorded: sent again it is answered the same', async () => {
      const { company } = await pushedOrder('refused');
      const at = Math.floor(Date.now() / 1000);
      const body = { orders: [{ reference: 'ORNOSUCHORDR', status: 'shipped' }] };
      expect((await postCallback(web.url, 'refused', company.id, SECRET, body, at)).status).to.equal(422);
      expect((await postCallback(web.url, 'refused', company.id, SECRET, body, at)).status).to.equal(422);
    });

    it('When signatures are older than the window, Then they are pruned as callbacks arrive', async () => {
      const { company, reference } = await pushedOrder('pruned');
      const { sequelize } = getCtx().db;
      await sequelize.query(
        `INSERT INTO carrier_callback_signatures (shipping_company_id, signature, signed_at)
         VALUES (:id, 'stale', now() - interval '1 hour'), (:id, 'recent', now() - interval '1 minute')`,
        { replacements: { id: company.id } },
      );
      const body = { orders: [{ reference, status: 'shipped' }] };
      expect((await postCallback(web.url, 'pruned', company.id, SECRET, body)).status).to.equal(200);
      const left = await sequelize.query<{ signature: string }>(
        'SELECT signature FROM carrier_callback_signatures WHERE shipping_company_id = :id ORDER BY signed_at',
        { replacements: { id: company.id }, type: QueryTypes.SELECT },
      );
      expect(left.map((r) => r.signature).slice(0, 1)).to.deep.equal(['recent']);
      expect(left).to.have.length(2);
    });
  });
});
