import { expect } from 'chai';
import { SCOPES, systemActor } from '../../src/actor.js';
import { SCOPE_PRESETS } from '../../src/tokens/scope-presets.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { serveLocal, useTestServer } from '../helpers.js';
import { login, panelApi, type SessionClient } from '../session.js';

/** A carrier on 127.0.0.1 that answers a tracking number and records the references it was sent. */
async function startCarrier() {
  const calls: string[] = [];
  const carrier = await serveLocal((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push(String(req.headers['x-idempotency-key']));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ tracking_number: `TRK-${JSON.parse(body).reference}` }));
    });
  });
  return { url: carrier.url('/shipments'), calls, close: carrier.close };
}

const addCarrier = (accountId: number, code: string, name: string, url = `http://127.0.0.1:9/${code}`) =>
  getCtx().services.shipping.createCompany(systemActor(), { account_id: accountId, code, name, endpoint_url: url });

async function newOrders(acc: TestAccount, n: number) {
  const { references } = await getCtx().services.orders.createMany(acc.seller.actor, {
    orders: Array.from({ length: n }, (_, i) => ({
      phone: `+2126${String(acc.id % 10000).padStart(4, '0')}${i}123`,
      full_name: `Buyer ${i}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
    })),
  });
  return getCtx().models.Order.findAll({
    where: { account_id: acc.id, reference: references },
    order: [['id', 'ASC']],
  });
}

describe('panel: pushing orders to the carrier chosen (issue 41)', function () {
  this.timeout(60_000);
  const web = useTestServer();
  const panel = (c: SessionClient, method: string, path: string, json?: unknown) =>
    panelApi(c, web.url, method, path, json);
  const asUser = (u: { email: string; password: string }) => login(web.url, u.email, u.password);

  it('When a seller with two carriers chooses one, Then the orders are queued for it and the job sends them there only', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [first, second] = [await startCarrier(), await startCarrier()];
    try {
      await addCarrier(acc.id, 'first', 'Zeta Express', first.url);
      const chosen = await addCarrier(acc.id, 'second', 'Alpha Post', second.url);
      const [bulk, single] = await newOrders(acc, 2);
      const seller = await asUser(acc.seller);

      const choices = await panel(seller, 'GET', `orders/actions/pushChoices?ids=${bulk.id}`);
      expect(choices.body.companies, choices.text).to.deep.equal([
        { code: 'second', name: 'Alpha Post' },
        { code: 'first', name: 'Zeta Express' },
      ]);

      const push = await panel(seller, 'POST', `orders/bulk/pushToShipping?recordIds=${bulk.id}`, {
        shipping_company: 'second',
      });
      expect(push.body.notice, push.text).to.deep.include({
        type: 'success',
        message: '1 order queued for Alpha Post.',
      });
      expect(await bulk.reload()).to.include({ push_state: 'queued', shipping_company_id: chosen.id });
      // the push job's work (jobs/push-order.job.ts), run here: the chosen carrier is called, the other never
      expect(await ctx.services.orders.pushOne(bulk.id, acc.seller.name, acc.seller.id)).to.equal('sent');
      expect(second.calls).to.deep.equal([bulk.reference]);
      expect(first.calls).to.deep.equal([]);
      expect(await bulk.reload()).to.include({ status: 'pushed', tracking_number: `TRK-${bulk.reference}` });

      // the order page's "Push to carrier": a GET only shows it, the POST pushes to the company chosen
      const look = await panel(seller, 'GET', `orders/records/${single.id}/pushOrder`);
      expect(look.body.record?.params?.reference, look.text).to.equal(single.reference);
      expect((await single.reload()).push_state).to.equal(null);
      const one = await panel(seller, 'POST', `orders/records/${single.id}/pushOrder`, { shipping_company: 'first' });
      expect(one.body.notice, one.text).to.deep.include({
        type: 'success',
        message: '1 order queued for Zeta Express.',
      });
      expect(one.body.redirectUrl).to.match(new RegExp(`/orders/records/${single.id}/show$`));
      expect(await ctx.services.orders.pushOne(single.id, acc.seller.name, acc.seller.id)).to.equal('sent');
      expect(first.calls).to.deep.equal([single.reference]);
      expect(second.calls).to.deep.equal([bulk.reference]);

      // once pushed, the button is not offered on its page, and a push is refused in words
      const again = await panel(seller, 'POST', `orders/records/${single.id}/pushOrder`, { shipping_company: 'first' });
      expect(again.body.notice?.message, again.text).to.equal(
        `Nothing was pushed: order ${single.reference} is Pushed, and only new orders can be pushed.`,
      );
      const page = await panel(seller, 'GET', `orders/records/${single.id}/show`);
      const offered = page.body.record.recordActions.map((a: { name: string }) => a.name);
      expect(offered).to.include('edit').and.not.include('pushOrder');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("When a seller names another account's carrier (or one unknown), Then it is refused as not found, naming it, and nothing is queued", async () => {
    const ctx = getCtx();
    const [own, other] = [await makeAccount(ctx), await makeAccount(ctx)];
    await addCarrier(own.id, 'mine', 'My Carrier');
    await addCarrier(other.id, 'theirs', 'Their Carrier');
    const [order] = await newOrders(own, 1);
    const [foreignOrder] = await newOrders(other, 1);
    const seller = await asUser(own.seller);
    for (const code of ['theirs', 'nowhere']) {
      const res = await panel(seller, 'POST', `orders/bulk/pushToShipping?recordIds=${order.id}`, {
        shipping_company: code,
      });
      expect(res.status).to.be.below(500);
      expect(res.body.notice, res.text).to.deep.include({
        type: 'error',
        message: `Nothing was pushed: "${code}" is not an active shipping company of this account.`,
      });
    }
    expect(await order.reload()).to.include({ push_state: null, shipping_company_id: null });
    // another account's orders list no choice, and cannot be pushed (not found, like an unknown id)
    const theirs = await panel(seller, 'GET', `orders/actions/pushChoices?ids=${foreignOrder.id}`);
    expect(theirs.body.companies, theirs.text).to.deep.equal([]);
    const foreign = await panel(seller, 'POST', `orders/records/${foreignOrder.id}/pushOrder`, {
      shipping_company: 'theirs',
    });
    expect(foreign.body?.notice?.type ?? 'error', foreign.text).to.not.equal('success');
    expect((await foreignOrder.reload()).push_state).to.equal(null);
  });

  it('When no carrier is chosen, Then two are refused in words, one is used and named, none is said in words', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [a, b, c] = await newOrders(acc, 3);
    const seller = await asUser(acc.seller);
    const push = (id: number) => panel(seller, 'POST', `orders/bulk/pushToShipping?recordIds=${id}`, {});

    const none = await push(a.id);
    expect(none.body.notice, none.text).to.deep.include({
      type: 'error',
      message:
        'Nothing was pushed: this account has no active shipping company. Add one under Settings → Shipping companies.',
    });

    await addCarrier(acc.id, 'solo', 'Solo Freight');
    const one = await push(a.id);
    expect(one.body.notice, one.text).to.deep.include({
      type: 'success',
      message: '1 order queued for Solo Freight.',
    });

    await addCarrier(acc.id, 'duo', 'Duo Freight');
    const two = await push(b.id);
    expect(two.body.notice, two.text).to.deep.include({
      type: 'error',
      message: 'Nothing was pushed: this account has more than one active shipping company. Choose the one to push to.',
    });
    expect(await b.reload()).to.include({ push_state: null, shipping_company_id: null });

    // in the user's language: the same refusal in French
    await ctx.models.User.update({ language: 'fr' }, { where: { id: acc.seller.id } });
    const french = await asUser(acc.seller);
    const fr = await panel(french, 'POST', `orders/records/${c.id}/pushOrder`, {});
    expect(fr.body.notice?.message, fr.text).to.equal(
      "Rien n'a été transmis : ce compte a plusieurs sociétés de livraison actives. Choisissez celle à qui transmettre.",
    );
    expect((await c.reload()).push_state).to.equal(null);
  });

  it('When an agent pushes from an order page, Then it is allowed as the policy allows agents to update orders', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await addCarrier(acc.id, 'agentship', 'Agent Ship');
    const [order] = await newOrders(acc, 1);
    const agent = await asUser(acc.agent);
    const choices = await panel(agent, 'GET', `orders/actions/pushChoices?ids=${order.id}`);
    expect(choices.body.companies, choices.text).to.deep.equal([{ code: 'agentship', name: 'Agent Ship' }]);
    const res = await panel(agent, 'POST', `orders/records/${order.id}/pushOrder`, {});
    expect(res.body.notice, res.text).to.deep.include({ type: 'success', message: '1 order queued for Agent Ship.' });
  });

  it('When an API key is created in the panel with a preset, Then it has exactly the preset scopes', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await asUser(acc.seller);
    expect(SCOPE_PRESETS.readOnly).to.deep.equal(['VIEW LEADS', 'VIEW ORDERS']);
    expect(SCOPE_PRESETS.everything).to.deep.equal([...SCOPES]);
    for (const [preset, scopes] of Object.entries(SCOPE_PRESETS)) {
      // as the form posts them: one flattened key per ticked checkbox
      const fields = Object.fromEntries(scopes.map((s, i) => [`scopes.${i}`, s]));
      const res = await panel(seller, 'POST', 'api_tokens/actions/new', { name: `preset ${preset}`, ...fields });
      expect(res.body.notice?.type, res.text).to.equal('success');
      const token = await ctx.models.ApiToken.findOne({ where: { account_id: acc.id, name: `preset ${preset}` } });
      expect(token!.scopes, preset).to.deep.equal(scopes);
    }
    // an unknown code is refused under the field, naming the value; nothing is saved
    const bad = await panel(seller, 'POST', 'api_tokens/actions/new', { name: 'bad scope', 'scopes.0': 'VIEW ALL' });
    expect(bad.body.notice?.type, bad.text).to.equal('error');
    expect(await ctx.models.ApiToken.count({ where: { account_id: acc.id, name: 'bad scope' } })).to.equal(0);
  });
});
