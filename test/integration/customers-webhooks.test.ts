import { expect } from 'chai';
import { WEBHOOK_EVENTS } from '../../src/webhooks/webhook.service.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useReceiver } from '../webhook-receiver.js';
import { lead } from '../customers-expected.js';

async function deliverAll(): Promise<void> {
  while ((await getCtx().services.webhooks.deliverDue()) > 0);
}

describe('customers in webhook payloads', () => {
  const receiver = useReceiver();

  it("When lead and order events are delivered, Then each carries the phone's customer record of its own account", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    await ctx.services.webhooks.create(acc.seller.actor, { url: receiver.url('/mine'), events: [...WEBHOOK_EVENTS] });
    await ctx.services.webhooks.create(other.seller.actor, { url: receiver.url('/theirs'), events: ['lead.created'] });
    await ctx.services.leads.createMany(other.seller.actor, { leads: [lead(other, '0613000001')] });
    const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [lead(acc, '0613000001'), lead(acc, '+212613000001'), lead(acc, 'no phone here')],
    });
    await ctx.services.leads.updateStatuses(acc.seller.actor, {
      leads: [{ reference: references[0], status: 'confirmed' }],
    });
    await deliverAll();

    const mine = receiver.at('/mine');
    const byEvent = (event: string) => mine.filter((r) => r.body.event === event);
    const created = byEvent('lead.created');
    expect(created).to.have.length(3);
    for (const r of created.filter((x) => x.body.data.lead.phone_e164 === '+212613000001'))
      expect(r.body.data.customer).to.include({ phone: '+212613000001', leads: 2, confirmed: 1, orders: 1 });
    const uncallable = created.find((x) => x.body.data.lead.phone_e164 === null)!;
    expect(uncallable.body.data).to.have.property('customer', null);
    const [order] = byEvent('order.created');
    expect(order.body.data.customer).to.include({ phone: '+212613000001', orders: 1, risky: false, blocked: false });
    expect(order.body.data.customer.last_order).to.include({
      reference: order.body.data.order.reference,
      status: 'new',
    });

    const [theirs] = receiver.at('/theirs');
    expect(theirs.body.data.customer).to.include({ phone: '+212613000001', leads: 1, confirmed: 0, orders: 0 });
  });
});
