import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { QueryTypes } from 'sequelize';
import { clearImpossible } from '../../migrations/20261203100000-uncallable-phones.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login, type SessionClient } from '../session.js';

/**
 * Uncallable phones (issue 30, shared/spec/decisions.md "Uncallable phones"): every phone of 7 to 100 characters is
 * accepted; one that is not a possible number is kept as typed without an E.164 form and its lead is created `wrong`
 * by `system`, in every entry point.
 */
const SEVEN = '1234567';
const HUNDRED = '1'.repeat(100);
const NOTE = /^Not a possible phone number \(national numbers of MA, or international with \+\)/;

/** A possible Moroccan mobile, unique per account and `i`. */
const mobile = (acc: TestAccount, i: number) =>
  `+2126${String(acc.id % 100).padStart(2, '0')}${String(i).padStart(6, '0')}`;

const item = (acc: TestAccount, phone: string, i = 0) => ({
  phone,
  full_name: `Client ${i}`,
  products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
});

type Row = { reference: string; phone: string; phone_normalized: string | null; status: string };
const rows = <T extends object = Row>(sql: string, bind: unknown[]) =>
  getCtx().db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
const leadsOf = (accountId: number) =>
  rows('SELECT reference, phone, phone_normalized, status FROM leads WHERE account_id = $1 ORDER BY id', [accountId]);
const ordersOf = (accountId: number) =>
  rows('SELECT reference, phone, phone_normalized, status FROM orders WHERE account_id = $1 ORDER BY id', [accountId]);

/** The lead's history as its show answers it (oldest first). */
async function historyOf(acc: TestAccount, reference: string) {
  return (await getCtx().services.leads.show(acc.seller.actor, { reference })).history;
}

/** The one creation entry of a lead created `wrong` for its phone. */
async function expectSystemWrong(acc: TestAccount, reference: string) {
  const history = await historyOf(acc, reference);
  expect(history, reference).to.have.length(1);
  expect(history[0]).to.include({ old_status: null, new_status: 'wrong', changed_by: 'system' });
  expect(history[0].note).to.match(NOTE);
}

describe('uncallable phones (issue 30)', () => {
  const web = useTestServer();

  it('When REST creates leads with 1234567 and 100 ones, Then 201, kept as typed without E.164, status wrong by system', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());

    const res = await call('POST', '/leads', { leads: [item(acc, SEVEN), item(acc, HUNDRED, 1)] });

    expect(res.status).to.equal(201);
    expect(await leadsOf(acc.id)).to.deep.equal([
      { reference: res.body.references[0], phone: SEVEN, phone_normalized: null, status: 'wrong' },
      { reference: res.body.references[1], phone: HUNDRED, phone_normalized: null, status: 'wrong' },
    ]);
    for (const reference of res.body.references) await expectSystemWrong(acc, reference);
    const shown = await call('GET', `/leads/${res.body.references[0]}/show`);
    expect(shown.body.data.history[0]).to.include({ changed_by: 'system', new_status: 'wrong' });
    const listed = await call('GET', `/lead-histories?lead_reference=${res.body.references[0]}`);
    expect(listed.body.data[0]).to.include({ changed_by: 'system', old_status: null, new_status: 'wrong' });
  });

  it('When a REST batch of 1,000 leads has one uncallable phone, Then 201: 999 new and that one wrong', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    const leads = Array.from({ length: 1000 }, (_, i) => item(acc, i === 500 ? '0600abc123' : mobile(acc, i), i));

    const res = await call('POST', '/leads', { leads });

    expect(res.status).to.equal(201);
    expect(res.body.references).to.have.length(1000);
    const stored = await leadsOf(acc.id);
    expect(stored.filter((l) => l.status === 'new')).to.have.length(999);
    expect(stored.filter((l) => l.status === 'wrong')).to.deep.equal([
      { reference: res.body.references[500], phone: '0600abc123', phone_normalized: null, status: 'wrong' },
    ]);
    await expectSystemWrong(acc, res.body.references[500]);
    expect((await historyOf(acc, res.body.references[0]))[0].changed_by).to.not.equal('system');
  });

  it('When a REST phone has 6 or 101 characters, Then 422 names it and nothing is written (the spec bounds)', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());

    for (const phone of ['123456', '1'.repeat(101)]) {
      const res = await call('POST', '/leads', { leads: [item(acc, mobile(acc, 1)), item(acc, phone)] });
      expect(res.status, phone).to.equal(422);
      expect(Object.keys(res.body.errors), phone).to.deep.equal(['leads.1.phone']);
      const orders = await call('POST', '/orders', { orders: [item(acc, phone)] });
      expect(orders.status, phone).to.equal(422);
    }
    expect(await leadsOf(acc.id)).to.deep.equal([]);
    expect(await ordersOf(acc.id)).to.deep.equal([]);
  });

  it('When the dashboard creates and edits leads with uncallable phones, Then created wrong whatever was asked; an edit keeps its status', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const seven = await c.json('POST', '/leads/store', { name: SEVEN, status: 'confirmed', full_name: 'Walk In' });
    const again = await c.json('POST', '/leads/store', { name: SEVEN, status: 'new' });
    const hundred = await c.json('POST', '/leads/store', { name: HUNDRED, status: 'call_later', action_date: FUTURE });
    const good = await c.json('POST', '/leads/store', { name: mobile(acc, 1), status: 'new' });
    const edit = await c.json('PATCH', `/leads/${good.body.data.id}/update`, {
      status: 'no_answer',
      full_name: 'Edited',
      phone: '06 00 abc',
    });

    for (const res of [seven, again, hundred]) {
      expect(res.status).to.equal(201);
      expect(res.body.data.status).to.equal('wrong');
      await expectSystemWrong(acc, res.body.data.reference);
    }
    expect(seven.body.data.order_reference, 'asked confirmed, created wrong: no order').to.equal(null);
    expect(good.status).to.equal(201);
    expect(edit.status).to.equal(200);
    expect(edit.body.data).to.include({ phone: '06 00 abc', status: 'no_answer' });
    expect((await leadsOf(acc.id)).map((l) => [l.phone, l.phone_normalized, l.status])).to.deep.equal([
      [SEVEN, null, 'wrong'],
      [SEVEN, null, 'wrong'],
      [HUNDRED, null, 'wrong'],
      ['06 00 abc', null, 'no_answer'],
    ]);
    expect(await ordersOf(acc.id)).to.deep.equal([]);
    for (const [method, path, body] of [
      ['POST', '/leads/store', { name: '123456', status: 'new' }],
      ['POST', '/leads/store', { name: '1'.repeat(101), status: 'new' }],
      ['PATCH', `/leads/${good.body.data.id}/update`, { status: 'new', full_name: 'Edited', phone: '123456' }],
    ] as const)
      expect((await c.json(method, path, body)).status, `${path} ${JSON.stringify(body)}`).to.equal(422);
  });

  it('When the panel creates and edits leads with uncallable phones, Then the same rules as the dashboard', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const panel = (c: SessionClient, path: string, json: unknown) =>
      c
        .fetch(`/admin/api/resources/leads/${path}`, { method: 'POST', headers: { origin: web.url }, json })
        .then(async (r) => ({ status: r.status, body: await r.json() }));

    const created = await panel(c, 'actions/new', { phone: SEVEN, full_name: 'Panel Walk In', status: 'confirmed' });
    const good = await panel(c, 'actions/new', { phone: mobile(acc, 2), full_name: 'Panel Good', status: 'new' });
    const id = good.body.record.params.id;
    const edited = await panel(c, `records/${id}/edit`, { phone: HUNDRED, full_name: 'Panel Good', status: 'new' });
    const short = await panel(c, 'actions/new', { phone: '123456', full_name: 'Panel Short', status: 'new' });

    expect(created.status).to.equal(200);
    expect(created.body.record.params).to.include({ phone: SEVEN, status: 'wrong' });
    await expectSystemWrong(acc, created.body.record.params.reference);
    expect(edited.status).to.equal(200);
    expect(edited.body.record.params).to.include({ phone: HUNDRED, status: 'new' });
    // AdminJS answers a validation error with 200 and the field errors on the record, under the form's Phone field
    // (the service names it `name`: admin/panel-form-errors.ts puts it under the field the user typed in)
    expect([short.status, Object.keys(short.body.record.errors)]).to.deep.equal([200, ['phone']]);
    expect((await leadsOf(acc.id)).map((l) => [l.phone, l.phone_normalized, l.status])).to.deep.equal([
      [SEVEN, null, 'wrong'],
      [HUNDRED, null, 'new'],
    ]);
  });

  it('When an exceljs workbook has uncallable phones, Then they are created wrong, and only a phone under 7 characters is in the report', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const sku = acc.skus.active[0];
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Leads');
    for (const r of [
      ['phone', 'sku', 'full_name'],
      [mobile(acc, 3), sku, 'Sheet Good'],
      [1234567, sku, 'Sheet Number Cell'],
      [HUNDRED, sku, 'Sheet Hundred'],
      ['123', sku, 'Sheet Short'],
      [mobile(acc, 3), sku, 'Sheet Again'],
      ['0600abc123', sku, 'Sheet Letters'],
    ])
      ws.addRow(r);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await wb.xlsx.writeBuffer())]), 'uncallable.xlsx');
    const up = await c.fetch('/leads/import', { method: 'POST', body: form });
    expect(up.status).to.equal(202);
    const { id } = (await up.json()) as { id: number };

    await getCtx().services.imports.run(id);

    const run = (await c.json('GET', `/imports/${id}`)).body.data;
    expect(run).to.include({ status: 'completed', rows_written: 5, rows_failed: 1 });
    expect((await leadsOf(acc.id)).map((l) => [l.phone, l.phone_normalized, l.status])).to.deep.equal([
      [mobile(acc, 3), mobile(acc, 3), 'new'],
      [SEVEN, null, 'wrong'],
      [HUNDRED, null, 'wrong'],
      [mobile(acc, 3), mobile(acc, 3), 'duplicate'],
      ['0600abc123', null, 'wrong'],
    ]);
    const wrong = (await leadsOf(acc.id)).filter((l) => l.status === 'wrong');
    for (const l of wrong) await expectSystemWrong(acc, l.reference);
    const report = await (await c.fetch(`/imports/${id}/report`)).text();
    const lines = report.trim().split(/\r?\n/).slice(1);
    expect(lines, report).to.have.length(1);
    expect(lines[0]).to.match(/^5,phone,/);
  });

  it('When orders carry an uncallable phone, or a wrong lead is confirmed, Then the order keeps the typed phone without E.164 and its status', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());

    const orders = await call('POST', '/orders', { orders: [item(acc, SEVEN), item(acc, mobile(acc, 4), 1)] });
    const leads = await call('POST', '/leads', { leads: [item(acc, HUNDRED)] });
    const confirm = await call('PUT', '/leads', {
      leads: [{ reference: leads.body.references[0], status: 'confirmed' }],
    });

    expect([orders.status, leads.status, confirm.status]).to.deep.equal([201, 201, 200]);
    expect((await ordersOf(acc.id)).map((o) => [o.phone, o.phone_normalized, o.status])).to.deep.equal([
      [SEVEN, null, 'new'],
      [mobile(acc, 4), mobile(acc, 4), 'new'],
      [HUNDRED, null, 'new'],
    ]);
    const shown = await call('GET', `/orders/${orders.body.references[0]}/show`);
    expect(shown.body.data).to.include({ phone: SEVEN, status: 'new' });
  });

  it('When two leads share an uncallable phone, Then neither is a duplicate, and a phone search does not find them', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());

    const first = await call('POST', '/leads', { leads: [item(acc, SEVEN), item(acc, SEVEN, 1)] });
    const later = await call('POST', '/leads', { leads: [item(acc, SEVEN, 2), item(acc, '+999 1234567', 3)] });
    const second = await call('POST', '/leads', { leads: [item(acc, '+999 1234567', 4)] });

    expect([first.status, later.status, second.status]).to.deep.equal([201, 201, 201]);
    expect((await leadsOf(acc.id)).map((l) => l.status)).to.deep.equal(['wrong', 'wrong', 'wrong', 'wrong', 'wrong']);
    const histories = await rows<{ new_status: string }>(
      'SELECT h.new_status FROM lead_histories h JOIN leads l ON l.id = h.lead_id WHERE l.account_id = $1',
      [acc.id],
    );
    expect(histories.map((h) => h.new_status)).to.not.include('duplicate');
    for (const keyWord of [SEVEN, '+999 1234567', '9991234567', '234']) {
      const found = await call('GET', `/leads?search_by=phone&keyWord=${encodeURIComponent(keyWord)}`);
      expect([found.status, found.body.data], keyWord).to.deep.equal([200, []]);
    }
    const dash = await login(web.url, acc.seller.email, acc.seller.password);
    expect((await dash.json('GET', `/leads?search=${SEVEN}`)).body.data).to.deep.equal([]);
  });

  it('When a webhook endpoint wants lead and order events, Then the payload carries phone_e164 null and the note', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.services.webhooks.create(acc.seller.actor, {
      url: 'http://127.0.0.1:9/hook',
      events: ['lead.created', 'order.created'],
    });

    await ctx.services.leads.createMany(acc.seller.actor, { leads: [item(acc, SEVEN), item(acc, mobile(acc, 5), 1)] });
    await ctx.services.orders.createMany(acc.seller.actor, { orders: [item(acc, HUNDRED)] });

    const events = await rows<{ event: string; payload: Record<string, any> }>(
      'SELECT event, payload FROM webhook_events WHERE account_id = $1 ORDER BY id',
      [acc.id],
    );
    const leads = events.filter((e) => e.event === 'lead.created').map((e) => e.payload);
    expect(leads.map((p) => [p.lead.phone, p.lead.phone_e164, p.lead.status])).to.deep.equal([
      [SEVEN, null, 'wrong'],
      [mobile(acc, 5), mobile(acc, 5), 'new'],
    ]);
    expect(leads[0].lead, 'the key is there, its value null').to.have.property('phone_e164', null);
    expect(leads[0].note).to.match(NOTE);
    expect(leads[0].changed_by).to.deep.equal({ name: 'system', user_id: null });
    const order = events.find((e) => e.event === 'order.created')!.payload.order;
    expect(order).to.include({ phone: HUNDRED, phone_e164: null, status: 'new' });
  });

  it('When the migration meets a phone left in the old digits form, Then it clears that form and keeps the status', async () => {
    const acc = await makeAccount(getCtx());
    await getCtx().services.leads.createMany(acc.seller.actor, {
      leads: [item(acc, mobile(acc, 6)), item(acc, '+212600700006', 1), item(acc, '0600700007', 2)],
    });
    const { sequelize } = getCtx().db;
    // the first as migration 20261130000000 left an impossible phone; the others as it left possible ones
    await sequelize.query(
      `UPDATE leads SET phone = '12 34 56', phone_normalized = '123456' WHERE account_id = $1 AND phone = $2`,
      { bind: [acc.id, mobile(acc, 6)] },
    );

    await clearImpossible(sequelize, 'leads');

    expect((await leadsOf(acc.id)).map((l) => [l.phone, l.phone_normalized, l.status])).to.deep.equal([
      ['12 34 56', null, 'new'],
      ['+212600700006', '+212600700006', 'new'],
      ['0600700007', '+212600700007', 'new'],
    ]);
  });
});

const FUTURE = `${new Date().getUTCFullYear() + 1}-06-01T10:00:00+00:00`;
