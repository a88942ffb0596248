import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login, panelApi } from '../session.js';

/**
 * A new lead from a blocked phone (issue 33, docs/decisions.md "Blocklist") is created `canceled`, its creation history
 * by `system` naming the block, through every entry point: REST, the dashboard route, the panel and an import.
 */
const NATIONAL = '0612345678';
const E164 = '+212612345678';
const REASON = 'Fake orders, never picks up';

/** A possible Moroccan mobile unique per account and `i`, never the blocked one. */
const mobile = (acc: TestAccount, i: number) =>
  `+2126${String(acc.id % 100).padStart(2, '0')}${String(i + 100).padStart(6, '0')}`;

const item = (acc: TestAccount, phone: string, i = 0) => ({
  phone,
  full_name: `Client ${i}`,
  products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
});

type Row = { reference: string; phone: string; status: string; changed_by: string; note: string | null };
/** Every lead of the account with its one creation entry, oldest first. */
const leadsOf = (accountId: number) =>
  getCtx().db.sequelize.query<Row>(
    `SELECT l.reference, l.phone, l.status, h.changed_by, h.note
       FROM leads l JOIN lead_histories h ON h.lead_id = l.id AND h.old_status IS NULL
      WHERE l.account_id = $1 ORDER BY l.id`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );

const blockedRow = (phone: string, reason = REASON) => ({
  phone,
  status: 'canceled',
  changed_by: 'system',
  note: `Blocked phone: ${reason}`,
});

async function blocked(phone = NATIONAL, reason = REASON) {
  const acc = await makeAccount(getCtx());
  const entry = await getCtx().services.blocklist.block(acc.seller.actor, { phone, reason });
  return { acc, entry };
}

describe('blocklist: new leads from a blocked phone', () => {
  const web = useTestServer();

  it('When REST creates leads from a blocked phone typed nationally and internationally, Then both are canceled by system naming the block', async () => {
    const { acc } = await blocked();
    const call = restClient(web.url, await acc.token());

    const res = await call('POST', '/leads', { leads: [item(acc, E164), item(acc, '06 12 34 56 78', 1)] });

    expect(res.status).to.equal(201);
    const rows = await leadsOf(acc.id);
    expect(rows.map(({ reference: _r, ...r }) => r)).to.deep.equal([blockedRow(E164), blockedRow('06 12 34 56 78')]);
    const shown = await call('GET', `/leads/${res.body.references[0]}/show`);
    expect(shown.body.data.status).to.equal('canceled');
    expect(shown.body.data.history[0]).to.include({ changed_by: 'system', new_status: 'canceled', old_status: null });
  });

  it('When a REST batch has one blocked phone among others, Then only that lead is canceled; the others are new by the token', async () => {
    const { acc } = await blocked();
    const call = restClient(web.url, await acc.token(undefined, 'crm'));

    const res = await call('POST', '/leads', {
      leads: [item(acc, mobile(acc, 1)), item(acc, NATIONAL, 1), item(acc, mobile(acc, 2), 2)],
    });

    expect(res.status).to.equal(201);
    const rows = await leadsOf(acc.id);
    expect(rows.map((r) => [r.phone, r.status, r.changed_by, r.note])).to.deep.equal([
      [mobile(acc, 1), 'new', `crm (${acc.seller.name})`, null],
      [NATIONAL, 'canceled', 'system', `Blocked phone: ${REASON}`],
      [mobile(acc, 2), 'new', `crm (${acc.seller.name})`, null],
    ]);
  });

  it('When a blocked phone already has a recent lead, Then the new one is canceled, not duplicate (blocked wins)', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    await call('POST', '/leads', { leads: [item(acc, NATIONAL)] });
    await getCtx().services.blocklist.block(acc.seller.actor, { phone: E164, reason: REASON });

    await call('POST', '/leads', { leads: [item(acc, NATIONAL, 1), item(acc, NATIONAL, 2)] });

    expect((await leadsOf(acc.id)).map((r) => r.status)).to.deep.equal(['new', 'canceled', 'canceled']);
  });

  it('When another account blocked the phone, Then this account’s lead from it is new', async () => {
    await blocked();
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());

    await call('POST', '/leads', { leads: [item(acc, NATIONAL)] });

    expect((await leadsOf(acc.id)).map((r) => [r.status, r.note])).to.deep.equal([['new', null]]);
  });

  it('When the phone is unblocked, Then its canceled lead stays canceled and the next lead is new (not a duplicate of it)', async () => {
    const { acc, entry } = await blocked();
    const call = restClient(web.url, await acc.token());
    await call('POST', '/leads', { leads: [item(acc, NATIONAL)] });

    await getCtx().services.blocklist.unblock(acc.seller.actor, entry.id);
    await call('POST', '/leads', { leads: [item(acc, NATIONAL, 1)] });
    await call('POST', '/leads', { leads: [item(acc, NATIONAL, 2)] });

    const rows = await leadsOf(acc.id);
    expect(rows.map((r) => [r.status, r.changed_by])).to.deep.equal([
      ['canceled', 'system'],
      ['new', 'shop (' + acc.seller.name + ')'],
      ['duplicate', 'system'],
    ]);
    expect(rows[0].note).to.equal(`Blocked phone: ${REASON}`);
  });

  it('When the dashboard route creates a lead from a blocked phone asked confirmed, Then 201, canceled by system and no order', async () => {
    const { acc } = await blocked();
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const res = await c.json('POST', '/leads/store', {
      name: E164,
      status: 'confirmed',
      full_name: 'Walk In',
      products: [{ sku: acc.skus.active[0], quantity: 1 }],
    });

    expect(res.status).to.equal(201);
    expect(res.body.data).to.include({ status: 'canceled', order_reference: null });
    expect(res.body.data.history).to.have.length(1);
    expect(res.body.data.history[0]).to.include({ changed_by: 'system', new_status: 'canceled' });
    expect((await leadsOf(acc.id)).map(({ reference: _r, ...r }) => r)).to.deep.equal([blockedRow(E164)]);
    const orders = await getCtx().models.Order.count({ where: { account_id: acc.id } });
    expect(orders).to.equal(0);
  });

  it('When the panel creates a lead from a blocked phone, Then it is canceled by system naming the block', async () => {
    const { acc } = await blocked();
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const res = await panelApi(c, web.url, 'POST', 'leads/actions/new', {
      phone: NATIONAL,
      full_name: 'Panel Walk In',
      status: 'new',
    });

    expect(res.status).to.equal(200);
    expect(res.body.record.params).to.include({ phone: NATIONAL, status: 'canceled' });
    expect((await leadsOf(acc.id)).map(({ reference: _r, ...r }) => r)).to.deep.equal([blockedRow(NATIONAL)]);
  });

  it('When a CSV import has a blocked phone among others, Then that row is canceled by system and the others new', async () => {
    const { acc } = await blocked(E164, 'Returned every parcel');
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const sku = acc.skus.active[0];
    const csv = [
      'phone,sku,full_name',
      `${mobile(acc, 1)},${sku},Good`,
      `${NATIONAL},${sku},Blocked`,
      `612345678,${sku},Again`,
    ];
    const form = new FormData();
    form.append('file', new Blob([csv.join('\n')]), 'leads.csv');
    const up = await c.fetch('/leads/import', { method: 'POST', body: form });
    expect(up.status).to.equal(202);
    const { id } = (await up.json()) as { id: number };

    await getCtx().services.imports.run(id);

    const rows = await leadsOf(acc.id);
    expect(rows.map((r) => [r.phone, r.status, r.changed_by, r.note])).to.deep.equal([
      [mobile(acc, 1), 'new', acc.seller.name, null],
      [NATIONAL, 'canceled', 'system', 'Blocked phone: Returned every parcel'],
      [NATIONAL, 'canceled', 'system', 'Blocked phone: Returned every parcel'],
    ]);
  });

  it('When the block’s reason is 500 characters, Then the lead’s note keeps its first 500 characters and the lead is created', async () => {
    const reason = 'r'.repeat(500);
    const { acc } = await blocked(NATIONAL, reason);
    const call = restClient(web.url, await acc.token());

    const res = await call('POST', '/leads', { leads: [item(acc, NATIONAL)] });

    expect(res.status).to.equal(201);
    const [row] = await leadsOf(acc.id);
    expect(row.status).to.equal('canceled');
    expect(row.note).to.equal(`Blocked phone: ${reason}`.slice(0, 500));
  });

  describe('every entry point that creates or confirms an order, and a phone change (issue 40, finding 6)', () => {
    it('When REST creates orders, one to a blocked phone, Then that order is canceled by system and cannot be pushed; the other is new', async () => {
      const { acc } = await blocked();
      const call = restClient(web.url, await acc.token());

      const res = await call('POST', '/orders', { orders: [item(acc, E164), item(acc, mobile(acc, 1), 1)] });

      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const [blockedRef, otherRef] = res.body.references;
      const rows = await getCtx().db.sequelize.query<{ reference: string; status: string; changed_by: string }>(
        `SELECT o.reference, o.status, h.changed_by FROM orders o
           JOIN order_histories h ON h.order_id = o.id AND h.old_status IS NULL
          WHERE o.account_id = $1 ORDER BY o.id`,
        { bind: [acc.id], type: QueryTypes.SELECT },
      );
      expect(rows).to.deep.equal([
        { reference: blockedRef, status: 'canceled', changed_by: 'system' },
        { reference: otherRef, status: 'new', changed_by: rows[1].changed_by },
      ]);
      expect(rows[1].changed_by).to.not.equal('system');
      // a canceled order moves nowhere: not to pushed
      const pushed = await call('PUT', '/orders', { orders: [{ reference: blockedRef, status: 'pushed' }] });
      expect(pushed.status).to.equal(422);
      expect((await getCtx().models.Order.findOne({ where: { reference: blockedRef } }))!.status).to.equal('canceled');
    });

    it('When a lead is confirmed after its phone was blocked, Then 422 under the lead, nothing changes and no order is made', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      const made = await call('POST', '/leads', { leads: [item(acc, E164), item(acc, mobile(acc, 1), 1)] });
      const [ref, other] = made.body.references;
      await getCtx().services.blocklist.block(acc.seller.actor, { phone: NATIONAL, reason: REASON });

      const res = await call('PUT', '/leads', {
        leads: [
          { reference: other, status: 'confirmed' },
          { reference: ref, status: 'confirmed' },
        ],
      });

      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({
        'leads.1.status': [`A lead whose phone is blocked cannot be confirmed (${ref}): unblock the phone first.`],
      });
      expect((await leadsOf(acc.id)).map((r) => r.status)).to.deep.equal(['new', 'new']);
      expect(await getCtx().models.Order.count({ where: { account_id: acc.id } })).to.equal(0);
    });

    it("When the dashboard changes a lead's phone to a blocked one and asks confirmed, Then the lead is canceled naming the block and no order is made", async () => {
      const { acc } = await blocked();
      const call = restClient(web.url, await acc.token());
      const made = await call('POST', '/leads', { leads: [item(acc, mobile(acc, 1), 1)] });
      const lead = await getCtx().models.Lead.findOne({ where: { reference: made.body.references[0] } });
      const c = await login(web.url, acc.seller.email, acc.seller.password);

      const res = await c.json('PATCH', `/leads/${lead!.id}/update`, {
        full_name: 'Client 1',
        phone: '06 12 34 56 78',
        status: 'confirmed',
      });

      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data).to.include({ status: 'canceled', order_reference: null });
      expect(res.body.data.history.at(-1)).to.include({ new_status: 'canceled', note: `Blocked phone: ${REASON}` });
      expect(await getCtx().models.Order.count({ where: { account_id: acc.id } })).to.equal(0);
    });
  });
});
