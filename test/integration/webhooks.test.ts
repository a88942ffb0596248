import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app-context.js';
import { WEBHOOK_EVENTS } from '../../src/webhooks/webhook.service.js';
import { makeAccount, uid, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useReceiver, type Received } from '../webhook-receiver.js';

const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;

async function addEndpoint(ctx: AppContext, acc: TestAccount, url: string, events: string[] = [...WEBHOOK_EVENTS]) {
  return ctx.services.webhooks.create(acc.seller.actor, { url, events });
}

async function createLeads(ctx: AppContext, acc: TestAccount, n: number): Promise<string[]> {
  const leads = Array.from({ length: n }, (_, i) => ({
    phone: phone(),
    full_name: `Customer ${i}`,
    city: 'Rabat',
    products: [{ sku: acc.skus.active[0], quantity: 2, price: 100 }],
  }));
  return (await ctx.services.leads.createMany(acc.seller.actor, { leads })).references;
}

const setStatus = (ctx: AppContext, acc: TestAccount, reference: string, status: string) =>
  ctx.services.leads.updateStatuses(acc.seller.actor, { leads: [{ reference, status }] });

/** Sends what is due until nothing is (retries scheduled later stay). */
async function deliverAll(ctx: AppContext): Promise<void> {
  while ((await ctx.services.webhooks.deliverDue()) > 0);
}

const deliveriesOf = (ctx: AppContext, endpointId: number) =>
  ctx.db.sequelize.query<Record<string, any>>(`SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id`, {
    bind: [endpointId],
    type: QueryTypes.SELECT,
  });

/** The signature check of docs/webhooks.md, taken out of the page and loaded as the module it says it is. */
async function docsVerifier(): Promise<(secret: string, headers: unknown, raw: Buffer) => boolean> {
  const page = await fs.promises.readFile('docs/webhooks.md', 'utf8');
  const block = /```js\n(\/\/ verify-webhook\.mjs[\s\S]*?)```/.exec(page);
  expect(block, 'docs/webhooks.md has the verify-webhook.mjs block').to.not.equal(null);
  const file = path.join(os.tmpdir(), `verify-webhook-${uid()}.mjs`);
  await fs.promises.writeFile(file, block![1]);
  return (await import(pathToFileURL(file).href)).verifyWebhook;
}

describe('Webhooks: deliveries to a real receiver', () => {
  const receiver = useReceiver();

  it('delivers every event once, signed, in order per lead; the docs snippet verifies each', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint, secret } = await addEndpoint(ctx, acc, receiver.url('/all'));
    const [ref] = await createLeads(ctx, acc, 1);
    await setStatus(ctx, acc, ref, 'no_answer');
    await setStatus(ctx, acc, ref, 'confirmed'); // creates the order
    const order = await ctx.models.Order.findOne({ where: { account_id: acc.id, lead_reference: ref } });
    await ctx.services.orders.updateStatuses(acc.seller.actor, {
      orders: [{ reference: order!.reference, status: 'pushed', tracking_number: 'TRK-1' }],
    });
    const csv = path.join(os.tmpdir(), `hooks-${uid()}.csv`);
    await fs.promises.writeFile(csv, `phone,sku\n${phone()},${acc.skus.active[1]}\n`);
    const run = await ctx.services.imports.start(acc.seller.actor, { path: csv, originalname: 'a.csv', size: 40 });
    await ctx.services.imports.run(run.id);

    await deliverAll(ctx);
    const got = receiver.at('/all');
    expect(got).to.have.length(7);
    const ofLead = got.filter((r) => (r.body.data.lead?.reference ?? r.body.data.order?.lead_reference) === ref);
    expect(ofLead.map((r) => r.body.event)).to.deep.equal([
      'lead.created',
      'lead.status_changed',
      'lead.status_changed',
      'order.created',
      'order.status_changed',
    ]);
    expect(got.map((r) => r.body.event).filter((e) => e === 'import.finished')).to.have.length(1);
    const [created, noAnswer, confirmed, orderCreated, pushed] = ofLead.map((r) => r.body);
    expect(created.data.lead).to.include({ reference: ref, status: 'new', city: 'Rabat' });
    expect(created.data.lead.products).to.deep.equal([
      { sku: acc.skus.active[0], name: `Product ${acc.skus.active[0]}`, quantity: 2, price: 100 },
    ]);
    expect(noAnswer.data).to.include({ old_status: 'new', new_status: 'no_answer', note: null });
    expect(noAnswer.data.changed_by).to.deep.equal({ name: acc.seller.name, user_id: acc.seller.id });
    expect(confirmed.data).to.include({ old_status: 'no_answer', new_status: 'confirmed' });
    expect(orderCreated.data.order).to.include({ reference: order!.reference, lead_reference: ref, status: 'new' });
    expect(pushed.data).to.include({ old_status: 'new', new_status: 'pushed', tracking_number: 'TRK-1' });
    const finished = got.find((r) => r.body.event === 'import.finished')!.body;
    expect(finished.data.import).to.include({ id: run.id, status: 'completed', rows_written: 1 });

    const verify = await docsVerifier();
    const ids = new Set<string>();
    for (const r of got) {
      expect(verify(secret, r.headers, r.raw), 'docs snippet verifies the delivery').to.equal(true);
      expect(verify('whsec_wrong', r.headers, r.raw)).to.equal(false);
      expect(verify(secret, r.headers, Buffer.concat([r.raw, Buffer.from(' ')]))).to.equal(false);
      expect(r.headers['webhook-id']).to.equal(r.body.id);
      expect(r.body.account_id).to.equal(acc.id);
      ids.add(r.body.id);
    }
    expect(ids.size).to.equal(7);
    const log = await deliveriesOf(ctx, endpoint.id);
    expect(log.map((d) => d.state)).to.deep.equal(Array(7).fill('delivered'));
    expect(log.every((d) => d.response_code === 200 && d.attempts === 1 && d.duration_ms >= 0)).to.equal(true);
    // nothing is sent twice
    await deliverAll(ctx);
    expect(receiver.at('/all')).to.have.length(7);
  });

  it('sends only subscribed events to active endpoints, and never another account’s', async () => {
    const ctx = getCtx();
    const [a, b] = [await makeAccount(ctx), await makeAccount(ctx)];
    const aHook = await addEndpoint(ctx, a, receiver.url('/a'), ['lead.status_changed']);
    const bHook = await addEndpoint(ctx, b, receiver.url('/b'));
    const off = await addEndpoint(ctx, a, receiver.url('/off'));
    await ctx.services.webhooks.update(a.seller.actor, off.endpoint.id, { active: false });
    const [ref] = await createLeads(ctx, a, 1);
    await setStatus(ctx, a, ref, 'canceled');
    await setStatus(ctx, a, ref, 'canceled'); // the same status again: no change, no event
    await deliverAll(ctx);
    expect(receiver.at('/a').map((r) => r.body.data.new_status)).to.deep.equal(['canceled']);
    expect(receiver.at('/b')).to.have.length(0);
    expect(receiver.at('/off')).to.have.length(0);
    expect(await deliveriesOf(ctx, bHook.endpoint.id)).to.have.length(0);
    expect(await deliveriesOf(ctx, aHook.endpoint.id)).to.have.length(1);
  });

  it('keeps each lead’s events in order under concurrent writers and two delivering workers', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint } = await addEndpoint(ctx, acc, receiver.url('/order'));
    // a slow, jittery receiver, so sends of different leads overlap and finish out of order
    receiver.answerWith(() => new Promise((resolve) => setTimeout(() => resolve(200), crypto.randomInt(0, 15))));
    const refs = await createLeads(ctx, acc, 6);
    const statuses = ['no_answer', 'wrong', 'canceled', 'no_answer', 'wrong', 'duplicate', 'canceled', 'new'];
    await Promise.all(refs.flatMap((ref) => statuses.map((s) => setStatus(ctx, acc, ref, s).catch(() => null))));
    await Promise.all([deliverAll(ctx), deliverAll(ctx)]);
    receiver.answerWith(() => 200);

    const got = receiver.at('/order');
    for (const ref of refs) {
      const history = await ctx.db.sequelize.query<{ old_status: string | null; new_status: string }>(
        `SELECT old_status, new_status FROM lead_histories WHERE account_id = $1 AND lead_reference = $2 ORDER BY id`,
        { bind: [acc.id, ref], type: QueryTypes.SELECT },
      );
      const seen = got
        .filter((r) => r.body.data.lead.reference === ref)
        .map((r) => ({ old_status: r.body.data.old_status, new_status: r.body.data.new_status }));
      expect(seen, ref).to.deep.equal(history);
      // a chain: every change starts where the one before ended
      for (let i = 1; i < seen.length; i++) expect(seen[i].old_status).to.equal(seen[i - 1].new_status);
    }
    const log = await deliveriesOf(ctx, endpoint.id);
    expect(got).to.have.length(log.length);
    expect(new Set(got.map((r) => r.body.id)).size).to.equal(log.length);
  });

  it('retries a failing receiver with growing waits, then disables the endpoint and mails the sellers', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint } = await addEndpoint(ctx, acc, receiver.url('/down'), ['lead.created']);
    receiver.answerWith((r) => (r.path === '/down' ? 503 : 200));
    await createLeads(ctx, acc, 1);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const before = Date.now();
      await deliverAll(ctx);
      const [d] = await deliveriesOf(ctx, endpoint.id);
      expect(d).to.include({ state: 'pending', attempts: attempt, response_code: 503 });
      expect(d.last_error).to.equal('HTTP 503: receiver says no');
      waits.push(new Date(d.next_try_at).getTime() - before);
      // the clock moves by moving the row: the retry is due now
      await ctx.db.sequelize.query(`UPDATE webhook_deliveries SET next_try_at = now() WHERE id = $1`, { bind: [d.id] });
    }
    expect(waits.map((w) => Math.round(w / 60_000))).to.deep.equal([1, 5, 30, 120]);
    const failing = await ctx.models.WebhookEndpoint.findByPk(endpoint.id);
    expect(failing!.active).to.equal(true);
    expect(failing!.failing_since).to.be.an.instanceOf(Date);

    // a day of failures: the next failure disables the endpoint
    await ctx.db.sequelize.query(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '25 hours' WHERE id = $1`,
      { bind: [endpoint.id] },
    );
    const outbox = path.join(ctx.config.dataDir, 'outbox');
    const mailsBefore = fs.existsSync(outbox) ? fs.readdirSync(outbox).length : 0;
    await deliverAll(ctx);
    const disabled = await ctx.models.WebhookEndpoint.findByPk(endpoint.id);
    expect(disabled).to.include({ active: false, disabled_reason: 'Every delivery failed for 24 hours.' });
    expect(disabled!.disabled_at).to.be.an.instanceOf(Date);
    const mails = fs
      .readdirSync(outbox)
      .slice(mailsBefore)
      .map((f) => JSON.parse(fs.readFileSync(path.join(outbox, f), 'utf8')))
      .filter((m) => m.text.includes(receiver.url('/down')));
    expect(mails.map((m) => m.to)).to.deep.equal([acc.seller.email]);
    expect(mails[0].subject).to.equal('LeadFlow: a webhook endpoint was disabled');

    // disabled: nothing is sent, nothing new is recorded
    const sent = receiver.at('/down').length;
    await ctx.db.sequelize.query(`UPDATE webhook_deliveries SET next_try_at = now() WHERE endpoint_id = $1`, {
      bind: [endpoint.id],
    });
    await createLeads(ctx, acc, 1);
    await deliverAll(ctx);
    expect(receiver.at('/down')).to.have.length(sent);
    expect(await deliveriesOf(ctx, endpoint.id)).to.have.length(1);

    // fixed and turned on again: the waiting delivery goes out, the marks are cleared
    receiver.answerWith(() => 200);
    const back = await ctx.services.webhooks.update(acc.seller.actor, endpoint.id, { active: true });
    expect(back).to.include({ active: true, failing_since: null, disabled_at: null, disabled_reason: null });
    await deliverAll(ctx);
    const [d] = await deliveriesOf(ctx, endpoint.id);
    expect(d).to.include({ state: 'delivered', response_code: 200, next_try_at: null });
  });

  it('gives a delivery up after its last attempt; later events of the lead then go out', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint } = await addEndpoint(ctx, acc, receiver.url('/flaky'));
    receiver.answerWith((r) => (r.path === '/flaky' && r.body.event === 'lead.created' ? 500 : 200));
    const [ref] = await createLeads(ctx, acc, 1);
    await setStatus(ctx, acc, ref, 'wrong');
    await deliverAll(ctx);
    // the change waits behind the failing creation
    expect(receiver.at('/flaky').map((r) => r.body.event)).to.deep.equal(['lead.created']);
    await ctx.db.sequelize.query(
      `UPDATE webhook_deliveries SET attempts = 7, next_try_at = now() WHERE endpoint_id = $1 AND event = 'lead.created'`,
      { bind: [endpoint.id] },
    );
    await deliverAll(ctx);
    receiver.answerWith(() => 200);
    const log = await deliveriesOf(ctx, endpoint.id);
    expect(log.map((d) => [d.event, d.state, d.attempts])).to.deep.equal([
      ['lead.created', 'failed', 8],
      ['lead.status_changed', 'delivered', 1],
    ]);
    expect(log[0].next_try_at).to.equal(null);
  });

  it('re-sends a delivery as a new one with its own id and the same event', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint, secret } = await addEndpoint(ctx, acc, receiver.url('/again'), ['lead.created']);
    await createLeads(ctx, acc, 1);
    await deliverAll(ctx);
    const [original] = await deliveriesOf(ctx, endpoint.id);
    const copy = await ctx.services.webhooks.resend(acc.seller.actor, original.id);
    expect(copy).to.include({ state: 'pending', resent_from: Number(original.id), event: 'lead.created', attempts: 0 });
    expect(copy.event_id).to.not.equal(original.event_id);
    await deliverAll(ctx);
    const [first, second] = receiver.at('/again');
    expect(second.body.id).to.equal(copy.event_id);
    expect(second.body.data).to.deep.equal(first.body.data);
    expect(second.body.created_at).to.equal(first.body.created_at);
    expect((await docsVerifier())(secret, second.headers, second.raw)).to.equal(true);
    expect((await ctx.services.webhooks.showDelivery(acc.seller.actor, copy.id)).state).to.equal('delivered');
    // another account cannot re-send it
    const other = await makeAccount(ctx);
    const err = await ctx.services.webhooks.resend(other.seller.actor, original.id).catch((e: Error) => e);
    expect(err).to.have.property('name', 'NotFoundError');
  });

  it('signs with a rotated secret from then on, and with the old one too during its grace period', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint, secret } = await addEndpoint(ctx, acc, receiver.url('/rotate'), ['lead.created']);
    const rotated = await ctx.services.webhooks.rotateSecret(acc.seller.actor, endpoint.id);
    expect(rotated.secret)
      .to.match(/^whsec_[A-Za-z0-9+/]{43}=$/)
      .and.not.equal(secret);
    expect(JSON.stringify(rotated.endpoint)).to.not.include(rotated.secret);
    expect(JSON.stringify(rotated.endpoint)).to.not.include(secret);
    expect(Date.parse(rotated.endpoint.rotation_grace_until!) - Date.now()).to.be.within(23.9 * 3.6e6, 24 * 3.6e6);
    await createLeads(ctx, acc, 1);
    await deliverAll(ctx);
    const verify = await docsVerifier();
    const [during] = receiver.at('/rotate') as Received[];
    expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2);
    expect(verify(rotated.secret, during.headers, during.raw)).to.equal(true);
    expect(verify(secret, during.headers, during.raw)).to.equal(true);
    // the grace period over: the new secret alone signs
    await ctx.models.WebhookEndpoint.update(
      { rotation_grace_until: new Date(Date.now() - 1000) },
      { where: { id: endpoint.id } },
    );
    await createLeads(ctx, acc, 1);
    await deliverAll(ctx);
    const after = (receiver.at('/rotate') as Received[])[1];
    expect(String(after.headers['webhook-signature']).split(' ')).to.have.length(1);
    expect(verify(rotated.secret, after.headers, after.raw)).to.equal(true);
    expect(verify(secret, after.headers, after.raw)).to.equal(false);
    const shown = await ctx.services.webhooks.show(acc.seller.actor, endpoint.id);
    expect(shown.rotation_grace_until).to.equal(null);
  });
});
