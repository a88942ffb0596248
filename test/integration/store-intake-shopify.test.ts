import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { deliver, fixture, intakeOf, leadsOf, makeStoreAccount, makeStoreSource } from '../store-webhooks.js';

/**
 * Shopify's `orders/create` webhook becomes a lead (issue 34, docs/lead-sources.md "Shopify"). The body is
 * test/fixtures/shopify-orders-create.json: Shopify's documented sample order (shopify.dev, webhook topic
 * orders/create), its second line the documented Black variant of the same product (IPOD2008BLACK, variant
 * 457924702) so that one line maps by sku and one by the source's mapping. Signed as Shopify documents it:
 * base64 HMAC-SHA256 of the raw body with the shop's secret.
 */
const SAMPLE = fixture('shopify-orders-create');
/** The sample with `change` applied (its order id kept exactly: admin_graphql_api_id holds it as text). */
const sampleWith = (change: (order: Record<string, any>) => void) => {
  const order = JSON.parse(SAMPLE);
  change(order);
  return JSON.stringify(order);
};

/**
 * Resolves once a statement of this database waits for another transaction to end (`transactionid`: the lead insert
 * on the unique index, whose key the open transaction holds; the insert's text is longer than pg_stat_activity keeps).
 */
async function insertWaitingOnALock() {
  for (let i = 0; i < 200; i++) {
    const [{ n }] = await getCtx().db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'transactionid'`,
      { type: QueryTypes.SELECT },
    );
    if (n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no lead insert came to wait on the lock');
}

describe('Shopify orders/create webhook → lead', () => {
  const web = useTestServer();

  async function shop(mapping: Record<string, string> = { '457924702': 'NANO-BLACK' }) {
    const acc = await makeStoreAccount(getCtx(), [
      ['IPOD2008PINK', 150],
      ['NANO-BLACK', 180],
    ]);
    return { acc, source: await makeStoreSource(acc.id, 'shopify', { mapping }) };
  }

  it('When Shopify delivers its documented order, Then one lead holds its contact fields and both lines mapped (sku, variant mapping)', async () => {
    const { acc, source } = await shop();
    const res = await deliver(web.url, source, SAMPLE);
    const body = await res.json();
    expect(res.status).to.equal(200);
    expect(body).to.include({ message: 'Lead created.', outcome: 'created' });
    const rest = restClient(web.url, await acc.token());
    const { body: shown } = await rest('GET', `/leads/${body.reference}/show`);
    expect(shown.data).to.include({
      full_name: 'Steve Shipper',
      phone: '555-555-SHIP',
      city: 'Shippington',
      area: 'Kentucky',
      address: '123 Shipping Street',
      total: 398,
    });
    expect(shown.data.products.map((p: any) => [p.sku, p.quantity, p.price])).to.deep.equal([
      ['IPOD2008PINK', 1, 199],
      ['NANO-BLACK', 1, 199],
    ]);
    expect(shown.data.data).to.deep.equal([
      { key: 'store_order', value: '#9999' },
      { key: 'payment', value: 'visa, bogus (voided)' },
    ]);
    // the sample's phone is not a possible number: kept as typed, the lead `wrong` (decisions: uncallable phones)
    expect(shown.data.status).to.equal('wrong');
    // the order id exactly, though the JSON number 820982911946154508 is past what a double holds
    expect(await leadsOf(getCtx(), acc.id)).to.deep.equal([
      { reference: body.reference, source_id: source.id, external_id: '820982911946154508', status: 'wrong' },
    ]);
  });

  it('When the order has a callable phone, Then the lead is new and its creation is written by the source', async () => {
    const { acc, source } = await shop();
    const raw = sampleWith((o) => (o.shipping_address.phone = '+1 202-555-0123'));
    const { reference } = await (await deliver(web.url, source, raw)).json();
    const lead = await getCtx().services.leads.show(acc.seller.actor, { reference });
    expect(lead).to.include({ status: 'new', phone: '+1 202-555-0123' });
    expect(lead.history.map((h: any) => [h.new_status, h.changed_by])).to.deep.equal([
      ['new', `Shopify: ${source.name}`],
    ]);
  });

  it('When the shipping address has no phone, Then the billing one, then the customer one is the lead phone', async () => {
    const { acc, source } = await shop();
    const raw = sampleWith((o) => {
      o.shipping_address.phone = null;
      o.billing_address.phone = '';
      o.customer.phone = '+12025550188';
    });
    const { reference } = await (await deliver(web.url, source, raw)).json();
    expect((await getCtx().services.leads.show(acc.seller.actor, { reference })).phone).to.equal('+12025550188');
  });

  it('When an order is delivered, Then its intake entry says created, with the order id, the shop and the webhook id', async () => {
    const { source } = await shop();
    const res = await deliver(web.url, source, SAMPLE, { headers: { 'x-shopify-webhook-id': 'b54557e4-bdd9-4b37' } });
    const { reference } = await res.json();
    const [entry] = await intakeOf(getCtx(), source.id);
    expect(entry).to.deep.include({
      outcome: 'created',
      reason: null,
      lead_reference: reference,
      external_id: '820982911946154508',
      origin: 'johns-apparel.myshopify.com',
    });
    expect(entry.payload).to.deep.equal({
      topic: 'orders/create',
      delivery_id: 'b54557e4-bdd9-4b37',
      order: '#9999',
      lines: 2,
    });
  });

  it('When the same order is delivered again, Then nothing new is created and the delivery is logged as a duplicate', async () => {
    const { acc, source } = await shop();
    const first = await (await deliver(web.url, source, SAMPLE)).json();
    const again = await deliver(web.url, source, SAMPLE);
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal({
      message: 'Order already received.',
      outcome: 'duplicate',
      reference: first.reference,
    });
    expect(await leadsOf(getCtx(), acc.id)).to.have.length(1);
    expect((await intakeOf(getCtx(), source.id)).map((e) => [e.outcome, e.reason, e.lead_reference])).to.deep.equal([
      ['created', null, first.reference],
      ['duplicate', 'order already received', first.reference],
    ]);
  });

  it('When three deliveries of one order arrive at once, Then one lead exists: one created, two duplicates', async () => {
    const { acc, source } = await shop();
    const answers = await Promise.all([1, 2, 3].map(() => deliver(web.url, source, SAMPLE).then((r) => r.json())));
    const leads = await leadsOf(getCtx(), acc.id);
    expect(leads).to.have.length(1);
    expect(answers.map((a) => a.outcome).sort()).to.deep.equal(['created', 'duplicate', 'duplicate']);
    expect(answers.map((a) => a.reference)).to.deep.equal([1, 2, 3].map(() => leads[0].reference));
    const log = await intakeOf(getCtx(), source.id);
    expect(log.map((e) => e.outcome).sort()).to.deep.equal(['created', 'duplicate', 'duplicate']);
  });

  it('When a delivery waits on the unique index for a commit of the same order, Then the index decides: a duplicate', async () => {
    const ctx = getCtx();
    const { acc, source } = await shop();
    const actor = { kind: 'system', accountId: acc.id, name: 'system' } as const;
    const item = {
      phone: '+12025550123',
      full_name: 'Held order',
      products: [{ sku: 'IPOD2008PINK', quantity: 1, price: 1 }],
    };
    const { prepared } = await ctx.services.leads.prepareLeads(actor, [item], 'order', acc.id);
    const holder = await ctx.db.sequelize.transaction();
    const origin = { sourceId: source.id, name: 'test', utm: null, externalId: '820982911946154508' };
    const [held] = await ctx.services.leads.insertLeads(actor, prepared as never, {
      transaction: holder,
      accountId: acc.id,
      origin,
    });
    // the delivery's pre-check cannot see the uncommitted lead; its insert waits on the index until the commit
    const pending = deliver(web.url, source, SAMPLE);
    await insertWaitingOnALock();
    await holder.commit();
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({
      message: 'Order already received.',
      outcome: 'duplicate',
      reference: held,
    });
    expect((await leadsOf(ctx, acc.id)).map((l) => l.reference)).to.deep.equal([held]);
    expect((await intakeOf(ctx, source.id)).map((e) => e.outcome)).to.deep.equal(['duplicate']);
  });

  it('When a line maps to nothing, Then the lead keeps it in its data, flagged, and the log says which line', async () => {
    const { acc, source } = await shop({});
    const { reference } = await (await deliver(web.url, source, SAMPLE)).json();
    const lead = await getCtx().services.leads.show(acc.seller.actor, { reference });
    expect(lead.products.map((p: any) => p.sku)).to.deep.equal(['IPOD2008PINK']);
    expect(lead.data).to.deep.include.members([
      { key: 'unmapped_line', value: 'IPod Nano - 8GB - Black × 1 @ 199 (sku IPOD2008BLACK)' },
      { key: 'needs_mapping', value: 'yes' },
    ]);
    const [entry] = await intakeOf(getCtx(), source.id);
    expect(entry).to.include({
      outcome: 'created',
      reason: '1 line not mapped: IPod Nano - 8GB - Black (sku IPOD2008BLACK)',
    });
  });

  it('When no line maps, Then the lead is still created, without products, and cannot be confirmed until mapped', async () => {
    const ctx = getCtx();
    const acc = await makeStoreAccount(ctx, []);
    const source = await makeStoreSource(acc.id, 'shopify');
    const { outcome, reference } = await (await deliver(web.url, source, SAMPLE)).json();
    expect(outcome).to.equal('created');
    const lead = await ctx.services.leads.show(acc.seller.actor, { reference });
    expect(lead.products).to.deep.equal([]);
    expect(lead.data.filter((d: any) => d.key === 'unmapped_line')).to.have.length(2);
    const refusal = await ctx.services.leads
      .updateStatuses(acc.seller.actor, { leads: [{ reference, status: 'confirmed' }] })
      .then(
        () => null,
        (err: Error) => err.message,
      );
    expect(refusal).to.match(/^A lead without products cannot be confirmed/);
  });

  it('When the landing page carried UTM fields, Then the lead keeps them', async () => {
    const { acc, source } = await shop();
    const raw = sampleWith((o) => (o.landing_site = '/products/ipod?utm_source=facebook&utm_campaign=summer&x=1'));
    await deliver(web.url, source, raw);
    const [row] = await getCtx().db.sequelize.query<{ utm: unknown }>('SELECT utm FROM leads WHERE account_id = $1', {
      bind: [acc.id],
      type: QueryTypes.SELECT,
    });
    expect(row.utm).to.deep.equal({ utm_source: 'facebook', utm_campaign: 'summer' });
  });

  it('When the topic is not orders/create, Then 200, nothing is created, and the log says the topic is not handled', async () => {
    const { acc, source } = await shop();
    const res = await deliver(web.url, source, SAMPLE, { topic: 'orders/updated' });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({
      message: 'Refused: topic not handled: orders/updated.',
      outcome: 'refused',
    });
    expect(await leadsOf(getCtx(), acc.id)).to.deep.equal([]);
    const [entry] = await intakeOf(getCtx(), source.id);
    expect(entry).to.include({ outcome: 'refused', reason: 'topic not handled: orders/updated' });
  });
});
