import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login, panelApi } from '../session.js';

/** Issue 41: a refusal names the value it refuses and what would do, alike in REST, dashboard, panel, queue, import. */
describe('errors that say what is wrong (issue 41)', function () {
  this.timeout(120_000);
  const web = useTestServer();
  const LEAD_STATUSES = 'new, confirmed, wrong, call_later, no_answer, duplicate, canceled';
  const phoneOf = (acc: TestAccount, i: number) =>
    `+2126${String(acc.id % 100).padStart(2, '0')}${String(i).padStart(6, '0')}`;
  /** The three sku refusals, for the account's skus: another case, an inactive product's, an unknown one. */
  const skuCases = (acc: TestAccount): [string, string][] => {
    const [a] = acc.skus.active;
    return [
      [a.toLowerCase(), `Sku '${a.toLowerCase()}' does not exist; did you mean '${a}'?`],
      [acc.skus.inactive, `Sku '${acc.skus.inactive}' belongs to an inactive product.`],
      ['NOPE-41', "Sku 'NOPE-41' does not exist."],
    ];
  };
  const pastMessage = (field: string, value: string) =>
    `The ${field} '${value}' is in the past: a call-back must be after now.`;
  const leadRow = (id: number) => getCtx().models.Lead.findByPk(id);

  it('When the dashboard routes get a wrong sku, status or a past call-back, Then each 422 names the value, nothing saved', async () => {
    const acc = await makeAccount(getCtx());
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    for (const [i, [sku, message]] of skuCases(acc).entries()) {
      const res = await seller.json('POST', '/leads/store', {
        name: phoneOf(acc, i),
        status: 'new',
        products: [{ sku }],
      });
      expect(res.status, sku).to.equal(422);
      expect(res.body.errors, sku).to.deep.equal({ 'products.0.sku': [message] });
    }
    const bogus = await seller.json('POST', '/leads/store', { name: phoneOf(acc, 5), status: 'xyz' });
    expect(bogus.body.errors).to.deep.equal({ status: [`The status 'xyz' is not one of: ${LEAD_STATUSES}.`] });
    const past = new Date(Date.now() - 60_000).toISOString();
    const early = await seller.json('POST', '/leads/store', {
      name: phoneOf(acc, 6),
      status: 'call_later',
      action_date: past,
    });
    expect(early.status).to.equal(422);
    expect(early.body.errors).to.deep.equal({ action_date: [pastMessage('action_date', past)] });
    expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(0);

    const ahead = new Date(Date.now() + 86_400_000).toISOString();
    const made = await seller.json('POST', '/leads/store', {
      name: phoneOf(acc, 7),
      status: 'call_later',
      action_date: ahead,
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const id = made.body.data.id as number;
    const edit = (action_date: string) =>
      seller.json('PATCH', `/leads/${id}/update`, {
        status: 'call_later',
        full_name: 'Edited',
        phone: phoneOf(acc, 7),
        action_date,
      });
    const refused = await edit(past);
    expect(refused.status).to.equal(422);
    expect(refused.body.errors).to.deep.equal({ action_date: [pastMessage('action_date', past)] });
    expect((await leadRow(id))!.action_date!.toISOString()).to.equal(ahead);
    // a lead whose call-back has come is due, not rescheduled: an edit sending its own time back is no refusal
    const due = new Date(Date.now() - 3_600_000);
    await getCtx().models.Lead.update({ action_date: due }, { where: { id } });
    const kept = await edit(due.toISOString());
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect((await leadRow(id))!.full_name).to.equal('Edited');
  });

  it("When the panel's forms get a wrong sku, status or a past call-back, Then the field says it with the value, in the user's language", async () => {
    const acc = await makeAccount(getCtx());
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const newLead = (i: number, fields: Record<string, string>) =>
      panelApi(seller, web.url, 'POST', 'leads/actions/new', {
        phone: phoneOf(acc, 10 + i),
        full_name: 'Panel words',
        status: 'new',
        ...fields,
      });
    for (const [i, [sku, message]] of skuCases(acc).entries()) {
      const res = await newLead(i, { 'products.0.sku': sku, 'products.0.quantity': '1' });
      expect(res.body.notice.type, sku).to.equal('error');
      expect(res.body.record.errors['products.0.sku'].message, sku).to.equal(message.replace(/\.$/, ''));
    }
    const status = await newLead(5, { status: 'xyz' });
    expect(status.body.record.errors.status.message).to.match(/^Status 'xyz' is not one of: New, .*Call later/);
    // the picker's wall time in the account's zone: the refusal names the instant the service was given
    const past = await newLead(6, { status: 'call_later', action_date: '2020-06-01T10:00' });
    expect(past.body.record.errors.action_date.message).to.match(
      /^Call back at '2020-06-01T\S+' is in the past: a call-back must be in the future$/,
    );
    expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(0);

    await getCtx().services.accounts.setLanguage(acc.seller.actor, 'fr');
    const french = await login(web.url, acc.seller.email, acc.seller.password);
    const [[sku]] = skuCases(acc);
    const res = await panelApi(french, web.url, 'POST', 'leads/actions/new', {
      phone: phoneOf(acc, 20),
      full_name: 'Mots du panneau',
      status: 'new',
      'products.0.sku': sku,
    });
    expect(res.body.record.errors['products.0.sku'].message).to.equal(
      `Le SKU « ${sku} » n'existe pas ; vouliez-vous dire « ${acc.skus.active[0]} » ?`,
    );
  });

  it('When the work queue gets a past call-back, Then REST and the panel page refuse it under action_date naming it; Z is accepted', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [1, 2].map((i) => ({
        phone: phoneOf(acc, 30 + i),
        full_name: 'Queue words',
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }],
      })),
    });
    const call = restClient(web.url, await acc.token());
    const held = (await call('POST', '/queue/next')).body.data;
    const past = '2021-03-01T10:00:00.000Z';
    const refused = await call('POST', `/queue/${held.reference}/outcome`, { status: 'call_later', action_date: past });
    expect(refused.status).to.equal(422);
    expect(refused.body).to.deep.equal({
      message: pastMessage('action_date', past),
      errors: { action_date: [pastMessage('action_date', past)] },
    });
    const wrong = await call('POST', `/queue/${held.reference}/outcome`, { status: 'new' });
    expect(wrong.body.errors).to.deep.equal({
      status: ["The status 'new' is not one of: confirmed, no_answer, wrong, call_later, canceled."],
    });
    const lead = (await ctx.models.Lead.findOne({ where: { reference: held.reference } }))!;
    expect([lead.status, lead.action_date]).to.deep.equal(['new', null]);
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    const done = await call('POST', `/queue/${held.reference}/outcome`, { status: 'call_later', action_date: ahead });
    expect(done.status, JSON.stringify(done.body)).to.equal(200);
    expect((await lead.reload()).action_date!.toISOString()).to.equal(ahead);

    const agent = await login(web.url, acc.agent.email, acc.agent.password);
    const queue = async (json: unknown) =>
      (await agent.fetch('/admin/api/pages/queue', { method: 'POST', json, headers: { origin: web.url } })).json();
    const next = (await queue({ op: 'next' })).lead;
    const answer = await queue({
      op: 'outcome',
      lead_id: next.id,
      status: 'call_later',
      action_date: '2021-03-01T10:00',
    });
    expect(answer.fields.action_date.join(' ')).to.match(/^Call back at '2021-03-01T\S+' is in the past/);
    expect((await leadRow(next.id))!.status).to.equal('new');
  });

  it("When an import row names a wrong sku, Then the report's sku column says which of the three it is", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const cases = skuCases(acc);
    const content = ['phone,sku', ...cases.map(([sku], i) => `${phoneOf(acc, 40 + i)},${sku}`)].join('\n');
    const file = path.join(os.tmpdir(), `${process.pid}-${Date.now()}-skus.csv`);
    await fs.promises.writeFile(file, content);
    const run = await ctx.services.imports.start(acc.seller.actor, {
      path: file,
      originalname: 'skus.csv',
      size: Buffer.byteLength(content),
    });
    await ctx.services.imports.run(run.id);
    const errors = await ctx.models.ImportRunError.findAll({
      where: { import_run_id: run.id },
      order: [['row_number', 'ASC']],
    });
    expect(errors.map((e) => [e.row_number, e.column_name, e.message])).to.deep.equal(
      cases.map(([, message], i) => [i + 2, 'sku', message]),
    );
  });
});
