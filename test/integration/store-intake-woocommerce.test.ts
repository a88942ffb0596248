import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { deliver, fixture, intakeOf, leadsOf, makeStoreAccount, makeStoreSource, sign } from '../store-webhooks.js';

/**
 * WooCommerce's `order.created` webhook becomes a lead (issue 34, docs/lead-sources.md "WooCommerce"). The body is
 * test/fixtures/woocommerce-order-created.json, the order of WooCommerce's REST API documentation (v3, "Retrieve an
 * order": order 727, John Doe): its first line has no sku (mapped by product id 93), its second the sku Bar3. Signed
 * as WooCommerce does it (WC_Webhook::generate_signature): base64 HMAC-SHA256 of the raw body with the secret.
 */
const SAMPLE = fixture('woocommerce-order-created');

describe('WooCommerce order.created webhook → lead', () => {
  const web = useTestServer();

  async function shop() {
    const acc = await makeStoreAccount(getCtx(), [
      ['Bar3', 15],
      ['WOO-SINGLE', 4],
    ]);
    return { acc, source: await makeStoreSource(acc.id, 'woocommerce', { mapping: { '93': 'WOO-SINGLE' } }) };
  }

  it('When WooCommerce delivers its documented order, Then one lead holds its contact fields and both lines mapped (product id, sku)', async () => {
    const { acc, source } = await shop();
    const res = await deliver(web.url, source, SAMPLE);
    expect(res.status).to.equal(200);
    const { outcome, reference } = await res.json();
    expect(outcome).to.equal('created');
    const lead = await getCtx().services.leads.show(acc.seller.actor, { reference });
    expect(lead).to.include({
      full_name: 'John Doe',
      phone: '(555) 555-5555',
      city: 'San Francisco',
      address: '969 Market',
      area: null,
      total: 18,
    });
    expect(lead.products.map((p: any) => [p.sku, p.quantity, p.price])).to.deep.equal([
      ['WOO-SINGLE', 2, 3],
      ['Bar3', 1, 12],
    ]);
    // the state code is shorter than an area may be (3): kept in data rather than lost
    expect(lead.data).to.deep.equal([
      { key: 'store_order', value: '#727' },
      { key: 'payment', value: 'Direct Bank Transfer' },
      { key: 'area', value: 'CA' },
    ]);
    expect(await leadsOf(getCtx(), acc.id)).to.deep.equal([
      { reference, source_id: source.id, external_id: '727', status: lead.status },
    ]);
    const [entry] = await intakeOf(getCtx(), source.id);
    expect(entry).to.include({ outcome: 'created', lead_reference: reference, origin: 'https://example.com/' });
  });

  it('When WooCommerce sends its ping on saving the webhook, Then 200 so the shop can save it, and nothing is created or logged', async () => {
    const { acc, source } = await shop();
    const res = await fetch(`${web.url}/api/web/1.0/intake/woocommerce/${source.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'WooCommerce/9.4 Hookshot' },
      body: 'webhook_id=3',
    });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ message: 'Webhook saved.' });
    expect(await leadsOf(getCtx(), acc.id)).to.deep.equal([]);
    expect(await intakeOf(getCtx(), source.id)).to.deep.equal([]);
  });

  it('When a body shaped like the ping carries a wrong signature, Then it is no ping: 401 and logged', async () => {
    const { source } = await shop();
    const res = await fetch(`${web.url}/api/web/1.0/intake/woocommerce/${source.key}`, {
      method: 'POST',
      headers: { 'x-wc-webhook-signature': sign('another secret', 'webhook_id=3') },
      body: 'webhook_id=3',
    });
    expect(res.status).to.equal(401);
    expect((await intakeOf(getCtx(), source.id)).map((e) => e.reason)).to.deep.equal(['bad signature']);
  });

  it('When the same order is delivered again, Then nothing new is created and the delivery is logged as a duplicate', async () => {
    const { acc, source } = await shop();
    const first = await (await deliver(web.url, source, SAMPLE)).json();
    const again = await (await deliver(web.url, source, SAMPLE)).json();
    expect(again).to.deep.equal({
      message: 'Order already received.',
      outcome: 'duplicate',
      reference: first.reference,
    });
    expect(await leadsOf(getCtx(), acc.id)).to.have.length(1);
    expect((await intakeOf(getCtx(), source.id)).map((e) => [e.outcome, e.reason])).to.deep.equal([
      ['created', null],
      ['duplicate', 'order already received'],
    ]);
  });

  it('When another order of the same buyer arrives, Then it is a second lead, a duplicate by phone as any lead would be', async () => {
    const { acc, source } = await shop();
    await deliver(web.url, source, SAMPLE);
    const second = SAMPLE.replace('"id": 727', '"id": 728').replace('"number": "727"', '"number": "728"');
    expect((await (await deliver(web.url, source, second)).json()).outcome).to.equal('created');
    expect((await leadsOf(getCtx(), acc.id)).map((l) => [l.external_id, l.status])).to.deep.equal([
      ['727', 'new'],
      ['728', 'duplicate'],
    ]);
  });

  it('When the topic is order.updated, Then 200, nothing is created, and the log says the topic is not handled', async () => {
    const { acc, source } = await shop();
    const res = await deliver(web.url, source, SAMPLE, { topic: 'order.updated' });
    expect(await res.json()).to.deep.equal({
      message: 'Refused: topic not handled: order.updated.',
      outcome: 'refused',
    });
    expect(await leadsOf(getCtx(), acc.id)).to.deep.equal([]);
  });

  it('When a WooCommerce key is used on the Shopify address, Then 404 and nothing is logged', async () => {
    const { source } = await shop();
    const res = await deliver(web.url, { ...source, kind: 'shopify' }, SAMPLE);
    expect(res.status).to.equal(404);
    expect(await res.json()).to.deep.equal({ message: 'Not found.' });
    expect(await intakeOf(getCtx(), source.id)).to.deep.equal([]);
  });
});
