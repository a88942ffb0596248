import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { expectReasonsWorded } from '../form-sources.js';
import { deliver, fixture, intakeOf, leadsOf, makeStoreAccount, makeStoreSource, sign } from '../store-webhooks.js';

/**
 * What a store webhook refuses, and how (issue 34, docs/lead-sources.md "What a shop is answered"): a wrong or missing
 * signature, another account's key, an unknown or inactive key, oversized, malformed and hostile bodies. Never a 500;
 * a refusal changes nothing but the intake log.
 */
const SAMPLE = fixture('shopify-orders-create');
const url = (base: string, kind: string, key: string) => `${base}/api/web/1.0/intake/${kind}/${key}`;

describe('store webhooks: refusals and hostile input', () => {
  const web = useTestServer();
  const ctx = () => getCtx();

  const accounts: number[] = [];
  async function shop(mapping: Record<string, string> = {}) {
    const acc = await makeStoreAccount(ctx(), [['IPOD2008PINK', 150]]);
    accounts.push(acc.id);
    return { acc, source: await makeStoreSource(acc.id, 'shopify', { mapping }) };
  }

  it('When the body is signed with another secret, Then 401, no lead, and the log says bad signature without the body', async () => {
    const { acc, source } = await shop();
    const res = await deliver(web.url, source, SAMPLE, { secret: 'not the shop secret' });
    expect(res.status).to.equal(401);
    expect(await res.json()).to.deep.equal({ message: 'Invalid signature.' });
    expect(await leadsOf(ctx(), acc.id)).to.deep.equal([]);
    const log = await intakeOf(ctx(), source.id);
    expect(log.map((e) => [e.outcome, e.reason, e.payload, e.lead_reference])).to.deep.equal([
      ['refused', 'bad signature', null, null],
    ]);
  });

  it('When a signed body is altered by one character, Then 401 and nothing is created', async () => {
    const { acc, source } = await shop();
    const tampered = SAMPLE.replace('"quantity": 1', '"quantity": 9');
    const res = await deliver(web.url, source, tampered, {
      headers: { 'x-shopify-hmac-sha256': sign(source.secret, SAMPLE) },
    });
    expect(res.status).to.equal(401);
    expect(await leadsOf(ctx(), acc.id)).to.deep.equal([]);
  });

  it('When the signature header is missing or not base64 of the digest, Then 401, each counted in one row', async () => {
    const { source } = await shop();
    const digest = sign(source.secret, SAMPLE);
    for (const header of [undefined, '', digest.toLowerCase(), `${digest}==`, Buffer.from(digest).toString('hex')])
      expect(
        (await deliver(web.url, source, SAMPLE, { headers: { 'x-shopify-hmac-sha256': header } })).status,
      ).to.equal(401);
    const log = await intakeOf(ctx(), source.id);
    expect(log.map((e) => [e.reason, e.attempts])).to.deep.equal([['bad signature', 5]]);
  });

  it("When one address floods a shop address with unsigned posts, Then past the forms' budget they are 429 unread, the log holds one counted row and the source does not look failing (issue 40, finding 2)", async () => {
    const { acc, source } = await shop();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++)
      statuses.push((await deliver(web.url, source, SAMPLE, { secret: 'not the shop secret' })).status);
    // FORM_RATE_PER_IP (10) refused deliveries a minute from one address, then 429
    expect(statuses).to.deep.equal([...Array(10).fill(401), ...Array(5).fill(429)]);
    const log = await intakeOf(ctx(), source.id);
    expect(log.map((e) => [e.outcome, e.reason, e.attempts, e.payload])).to.deep.equal([
      ['refused', 'bad signature', 10, null],
    ]);
    const shown = await ctx().services.sources.show(acc.seller.actor, source.id);
    expect(shown.health).to.deep.include({ state: 'ok', received_24h: 0, refused_24h: 0 });
  });

  it('When the source has no secret, Then no delivery passes, even one signed with an empty key', async () => {
    const acc = await makeStoreAccount(ctx(), []);
    const source = await makeStoreSource(acc.id, 'shopify', { secret: null });
    const res = await deliver(web.url, source, SAMPLE, { secret: '' });
    expect(res.status).to.equal(401);
    expect(await leadsOf(ctx(), acc.id)).to.deep.equal([]);
  });

  it("When another account's key is used, Then the order is that account's alone: signed with this account's secret it is refused", async () => {
    const mine = await shop({ '457924702': 'IPOD2008PINK' });
    const theirs = await shop();
    const crossed = await deliver(web.url, theirs.source, SAMPLE, { secret: mine.source.secret });
    expect(crossed.status).to.equal(401);
    expect((await intakeOf(ctx(), theirs.source.id)).map((e) => e.reason)).to.deep.equal(['bad signature']);
    const signed = await (await deliver(web.url, theirs.source, SAMPLE)).json();
    expect(await leadsOf(ctx(), mine.acc.id)).to.deep.equal([]);
    expect((await leadsOf(ctx(), theirs.acc.id)).map((l) => l.reference)).to.deep.equal([signed.reference]);
    // their source's mapping, not mine: the Black variant stays unmapped there
    const lead = await ctx().services.leads.show(theirs.acc.seller.actor, { reference: signed.reference });
    expect(lead.products.map((p: any) => p.sku)).to.deep.equal(['IPOD2008PINK']);
    expect(await intakeOf(ctx(), mine.source.id)).to.deep.equal([]);
  });

  it('When the key is unknown, too long, not a key, or its source inactive, Then 404 and nothing is logged', async () => {
    const { acc } = await shop();
    const inactive = await makeStoreSource(acc.id, 'shopify', { active: false });
    for (const key of ['unknownkey0000000000000000000000', 'k'.repeat(41), '%00', 'a%27b', inactive.key]) {
      const res = await deliver(web.url, { ...inactive, key }, SAMPLE);
      expect(res.status, key).to.equal(404);
      expect(await res.json()).to.deep.equal({ message: 'Not found.' });
    }
    expect(await intakeOf(ctx(), inactive.id)).to.deep.equal([]);
  });

  it('When the body is over 1 MB, Then 413, nothing is created, and the log says so', async () => {
    const { acc, source } = await shop();
    const huge = JSON.stringify({ ...JSON.parse(SAMPLE), note: 'x'.repeat(1024 * 1024) });
    const res = await deliver(web.url, source, huge);
    expect(res.status).to.equal(413);
    expect(await res.json()).to.deep.equal({ message: 'The request body is too large.' });
    expect(await leadsOf(ctx(), acc.id)).to.deep.equal([]);
    expect((await intakeOf(ctx(), source.id)).map((e) => [e.outcome, e.reason])).to.deep.equal([
      ['refused', 'body over 1 MB'],
    ]);
  });

  it('When a body over 1 MB is sent to an unknown key, Then 404', async () => {
    const res = await fetch(url(web.url, 'shopify', 'nosuchkey'), {
      method: 'POST',
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(res.status).to.equal(404);
  });

  it('When a signed body is not JSON, Then 200 refused "malformed JSON" (a retry could never pass); unsigned, 401', async () => {
    const { acc, source } = await shop();
    const signed = await deliver(web.url, source, '{"id": 1,');
    expect(signed.status).to.equal(200);
    expect(await signed.json()).to.deep.equal({ message: 'Refused: malformed JSON.', outcome: 'refused' });
    const unsigned = await fetch(url(web.url, 'shopify', source.key), { method: 'POST', body: '{"id": 1,' });
    expect(unsigned.status).to.equal(401);
    const log = await intakeOf(ctx(), source.id);
    expect(log.map((e) => e.reason)).to.deep.equal(['malformed JSON', 'bad signature']);
    expect(log[0].payload).to.deep.include({ topic: 'orders/create', body: '{"id": 1,' });
    expect(await leadsOf(ctx(), acc.id)).to.deep.equal([]);
  });

  it('When a signed body is JSON but no order, Then 200 refused, the body kept in the log (its text made fit)', async () => {
    const { source } = await shop();
    for (const body of ['[]', '"order"', 'null', '{"id": {"nested": true}, "k\\u0000": "\\udc00"}'])
      expect(await (await deliver(web.url, source, body)).json()).to.deep.equal({
        message: 'Refused: invalid order: no order id.',
        outcome: 'refused',
      });
    expect((await intakeOf(ctx(), source.id)).map((e) => e.payload)).to.deep.equal([
      [],
      'order',
      null,
      { id: { nested: true }, 'k\ufffd': '\ufffd' },
    ]);
  });

  it('When an order has no phone anywhere, Then 200 refused with the field rule, and the whole order kept in the log', async () => {
    const { acc, source } = await shop();
    const order = JSON.parse(SAMPLE);
    order.shipping_address.phone = order.billing_address.phone = null;
    const res = await deliver(web.url, source, JSON.stringify(order));
    expect(await res.json()).to.deep.equal({
      message: 'Refused: invalid order: The order.0.phone field is required.',
      outcome: 'refused',
    });
    expect(await leadsOf(ctx(), acc.id)).to.deep.equal([]);
    const [entry] = await intakeOf(ctx(), source.id);
    expect(entry).to.include({ outcome: 'refused', external_id: '820982911946154508' });
    expect((entry.payload as any).line_items).to.have.length(2);
  });

  it('When an order carries NUL, lone surrogates, prototype-named keys and skus, Then it is a lead with the text made fit, never a 500', async () => {
    const { acc, source } = await shop();
    const order = JSON.parse(SAMPLE);
    order.shipping_address.name = 'Steve\u0000 \ud800Shipper';
    order.line_items[1].sku = 'constructor';
    order.line_items[1].variant_id = '__proto__';
    const raw = JSON.stringify(order).replace('"note":null', '"note":null,"__proto__":{"x":1},"k\\u0000":"\\udc00"');
    const res = await deliver(web.url, source, raw);
    expect(res.status).to.equal(200);
    const { outcome, reference } = await res.json();
    expect(outcome).to.equal('created');
    const lead = await ctx().services.leads.show(acc.seller.actor, { reference });
    expect(lead.full_name).to.equal('Steve\ufffd \ufffdShipper');
    expect(lead.products.map((p: any) => p.sku)).to.deep.equal(['IPOD2008PINK']);
    expect(lead.data).to.deep.include({
      key: 'unmapped_line',
      value: 'IPod Nano - 8GB - Black × 1 @ 199 (sku constructor)',
    });
    expect(({} as any).polluted).to.equal(undefined);
  });

  it('When a mapped line has a price the spec refuses (a free gift), Then the line is kept in data with the reason', async () => {
    const { acc, source } = await shop();
    const order = JSON.parse(SAMPLE);
    order.line_items[0].price = '0.00';
    const { reference } = await (await deliver(web.url, source, JSON.stringify(order))).json();
    const lead = await ctx().services.leads.show(acc.seller.actor, { reference });
    expect(lead.products).to.deep.equal([]);
    const [entry] = await intakeOf(ctx(), source.id);
    expect(entry.reason).to.equal(
      '2 lines not mapped: IPod Nano - 8GB - Pink (price 0 outside 1–999,999); IPod Nano - 8GB - Black (sku IPOD2008BLACK)',
    );
  });

  it('When the address is asked with GET, Then 405', async () => {
    const { source } = await shop();
    const res = await fetch(url(web.url, 'shopify', source.key));
    expect(res.status).to.equal(405);
    expect(await res.json()).to.deep.equal({ message: 'The method is not supported for this route.' });
  });

  it('When the panel shows the reasons these deliveries logged, Then each reads in French and in Arabic', async () => {
    await expectReasonsWorded(ctx(), accounts, 4);
  });
});
