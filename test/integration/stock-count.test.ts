import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { Webhook } from 'standardwebhooks';
import { systemActor } from '../../src/actor.js';
import { loadExcelJS } from '../../src/excel.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, panelApi, type SessionClient } from '../session.js';
import { useReceiver } from '../webhook-receiver.js';
import * as stockMigration from '../../migrations/20261214000000-stock.js';
import * as followsMigration from '../../migrations/20261216000000-stock-follows.js';

/**
 * Issue 43: the stock count import (a file of sku, warehouse and quantity counted, as an import run of kind `stock`
 * through the dashboard's POST /stock/import) and the `stock.low` webhook (docs/stock.md, docs/webhooks.md).
 */
async function upload(c: SessionClient, name: string, content: string | Buffer, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  const res = await c.fetch('/stock/import', { method: 'POST', body: form });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

async function onHand(accountId: number): Promise<Record<string, number>> {
  const page = await getCtx().services.stock.list(systemActor(), { account_id: accountId, per_page: 100 });
  return Object.fromEntries(page.data.map((l) => [`${l.sku}@${l.warehouse}`, l.on_hand]));
}

const receive = (acc: TestAccount, sku: string, quantity: number, warehouse?: string) =>
  getCtx().services.stock.record(acc.seller.actor, {
    movements: [{ sku, kind: 'receipt', quantity, ...(warehouse && { warehouse }) }],
  });

describe('stock counts and stock.low', function () {
  this.timeout(60_000);
  const web = useTestServer();
  const receiver = useReceiver();
  let a: TestAccount;
  let b: TestAccount;
  let seller: SessionClient;

  before(async () => {
    [a, b] = [await makeAccount(getCtx()), await makeAccount(getCtx())];
    seller = await login(web.url, a.seller.email, a.seller.password);
    await getCtx().services.stock.createWarehouse(a.seller.actor, { code: 'FES', name: 'Fès' });
  });

  it('When a seller imports a count with good and bad rows, Then each good row is an adjustment for the difference and each bad one is in the report', async () => {
    const [s1, s2, s3] = a.skus.active;
    await receive(a, s1, 10);
    await receive(a, s2, 4);
    await receive(a, s3, 7, 'FES');
    const rows = [
      'SKU,Quantity,Warehouse,note',
      `${s1},6,,fewer on the shelf`, // 10 → 6
      `${s2.toLowerCase()},9,main,more`, // 4 → 9, any case
      `${s3},7,FES,as it was`, // no change: no movement
      `${b.skus.active[0]},3,,another account's sku`,
      `${s1},2,NOWHERE,unknown warehouse`,
      `${s2},-3,FES,negative`,
      `${s2},1.5,FES,not whole`,
      `,4,,no sku`,
      `${s1},5,MAIN,counted twice`,
      ',,,',
    ];
    const up = await upload(seller, 'count.csv', rows.join('\n') + '\n');
    expect(up.status).to.equal(202);
    expect(up.body.data).to.include({ status: 'queued', file_name: 'count.csv' });
    await getCtx().services.stock.runCount(up.body.id);

    const run = await getCtx().services.imports.report(a.seller.actor, up.body.id);
    expect(run.run).to.include({ status: 'completed', rows_total: 9, rows_written: 3, rows_failed: 6, percent: 100 });
    expect(run.refused.map((r) => [r.row, r.column])).to.deep.equal([
      [5, 'sku'],
      [6, 'warehouse'],
      [7, 'quantity'],
      [8, 'quantity'],
      [9, 'sku'],
      [10, 'sku'],
    ]);
    expect(run.refused[0].message).to.include(b.skus.active[0]);
    expect(run.refused[5].message).to.match(/counted twice \(first on row 2\)/);
    const levels = await onHand(a.id);
    expect(levels).to.include({ [`${s1}@MAIN`]: 6, [`${s2}@MAIN`]: 9, [`${s3}@FES`]: 7 });
    const ledger = await getCtx().services.stock.movements(a.seller.actor, { kind: 'adjustment' });
    expect(ledger.data.map((m) => [m.sku, m.quantity, m.reason])).to.have.deep.members([
      [s1, -4, 'Stock count: count.csv'],
      [s2, 5, 'Stock count: count.csv'],
    ]);
    // B has nothing of it
    expect(await getCtx().services.stock.movements(b.seller.actor, {})).to.include({ total: 0 });
  });

  it('When the same count runs twice, at once, Then the levels are what was counted, never the difference twice', async () => {
    const sku = a.skus.active[0];
    await receive(a, sku, 20, 'FES');
    const up = await upload(seller, 'again.csv', `sku,warehouse,quantity\n${sku},FES,12\n`);
    await Promise.all([getCtx().services.stock.runCount(up.body.id), getCtx().services.stock.runCount(up.body.id)]);
    await getCtx().services.stock.runCount(up.body.id);
    expect((await onHand(a.id))[`${sku}@FES`]).to.equal(12);
    const [{ n }] = await getCtx().db.sequelize.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM stock_movements WHERE account_id = $1 AND reason = 'Stock count: again.csv'",
      { bind: [a.id], type: QueryTypes.SELECT },
    );
    expect(n).to.equal(1);
  });

  it('When the count is an xlsx workbook, Then it is read like the csv', async () => {
    const sku = a.skus.active[1];
    const ExcelJS = await loadExcelJS();
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Count');
    sheet.addRow(['sku', 'warehouse', 'quantity']);
    sheet.addRow([sku, 'FES', 3]);
    const up = await upload(seller, 'count.xlsx', Buffer.from(await book.xlsx.writeBuffer()));
    expect(up.status).to.equal(202);
    await getCtx().services.stock.runCount(up.body.id);
    expect((await onHand(a.id))[`${sku}@FES`]).to.equal(3);
  });

  it('When a file lies or misses a column, Then the run fails with the reason and nothing moves', async () => {
    const before = await getCtx().services.stock.movements(a.seller.actor, {});
    const noQuantity = await upload(seller, 'bad.csv', `sku,counted\n${a.skus.active[0]},1\n`);
    await getCtx().services.stock.runCount(noQuantity.body.id);
    const failed = await getCtx().services.imports.report(a.seller.actor, noQuantity.body.id);
    expect(failed.run).to.include({ status: 'failed' });
    expect(failed.run.error).to.match(/no quantity column/);
    const fake = await upload(seller, 'fake.xlsx', 'sku,quantity\nX,1\n');
    expect(fake.status).to.equal(422);
    expect(fake.body.errors.file[0]).to.match(/not a valid \.xlsx/);
    const pdf = await upload(seller, 'count.pdf', 'sku,quantity\n');
    expect(pdf.status).to.equal(422);
    expect(await getCtx().services.stock.movements(a.seller.actor, {})).to.include({ total: before.total });
  });

  it('When a file names itself with a NUL byte or holds cells longer than any sku, Then it is refused or reported, never kept or crashed', async () => {
    const uploads = path.join(getCtx().config.dataDir, 'uploads', String(a.id));
    const before = fs.existsSync(uploads) ? fs.readdirSync(uploads).length : 0;
    // the name as RFC 5987 says it (filename*), which busboy decodes, NUL included
    const boundary = 'count-boundary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''count%00.csv\r\n` +
      `Content-Type: text/csv\r\n\r\nsku,quantity\n${a.skus.active[0]},1\n\r\n--${boundary}--\r\n`;
    const res = await seller.fetch('/stock/import', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, accept: 'application/json' },
      body,
    });
    const named = { status: res.status, body: await res.json() };
    expect(named.status).to.equal(422);
    expect(named.body.errors.file[0]).to.match(/file name/);
    expect(fs.existsSync(uploads) ? fs.readdirSync(uploads).length : 0).to.equal(before);

    const long = 'X'.repeat(5000);
    const rows = [`sku,quantity,warehouse`, ...Array.from({ length: 200 }, () => `${long},1,${long}`)];
    const up = await upload(seller, 'long.csv', rows.join('\n') + '\n');
    await getCtx().services.stock.runCount(up.body.id);
    const report = await getCtx().services.imports.report(a.seller.actor, up.body.id);
    expect(report.run).to.include({ status: 'completed', rows_written: 0, rows_failed: 200 });
    expect(report.refused[0].message).to.not.include('XXXX');
    // a late attempt of an ended run changes nothing
    await getCtx().services.stock.runCount(up.body.id);
    expect((await getCtx().services.imports.report(a.seller.actor, up.body.id)).run.status).to.equal('completed');
  });

  it('When another seller names A, an agent uploads, or a stranger posts, Then nothing of A moves', async () => {
    const sellerB = await login(web.url, b.seller.email, b.seller.password);
    const named = await upload(sellerB, 'b.csv', `sku,quantity\n${a.skus.active[0]},99\n`, {
      account_id: String(a.id),
    });
    expect(named.status).to.equal(202);
    expect(named.body.data.account_id).to.equal(b.id); // a tenant's upload goes to their own account
    await getCtx().services.stock.runCount(named.body.id);
    expect((await onHand(a.id))[`${a.skus.active[0]}@MAIN`]).to.not.equal(99);
    const report = await getCtx().services.imports.report(b.seller.actor, named.body.id);
    expect(report.refused[0].message).to.include('not an active product');
    // A's run is not B's to read
    const [ofA] = await getCtx().db.sequelize.query<{ id: number }>(
      "SELECT max(id) AS id FROM import_runs WHERE account_id = $1 AND kind = 'stock'",
      { bind: [a.id], type: QueryTypes.SELECT },
    );
    const other = await panelApi(sellerB, web.url, 'GET', `import_runs/records/${ofA.id}/importReport`);
    // AdminJS answers a record outside the actor's scope as not found, with nothing of it
    expect(other.body.run).to.equal(undefined);
    expect(other.body.notice).to.include({ type: 'error' });
    expect(JSON.stringify(other.body)).to.not.include('count.csv');

    const agent = await login(web.url, a.agent.email, a.agent.password);
    expect((await upload(agent, 'c.csv', `sku,quantity\n${a.skus.active[0]},1\n`)).status).to.equal(403);
    const anonymous = await fetch(`${web.url}/stock/import`, {
      method: 'POST',
      body: new FormData(),
      redirect: 'manual',
    });
    expect(anonymous.status).to.be.oneOf([302, 401]);
    const page = await seller.fetch('/stock/import', { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/admin/pages/stock');
  });

  it('When an admin imports a count, Then the account must be named and the adjustments are that account\u2019s', async () => {
    const admin = await makeAdmin(getCtx());
    const c = await login(web.url, admin.email, admin.password);
    const sku = b.skus.active[1];
    const unnamed = await upload(c, 'x.csv', `sku,quantity\n${sku},5\n`);
    expect(unnamed.status).to.equal(422);
    expect(unnamed.body.errors).to.have.key('account_id');
    const named = await upload(c, 'x.csv', `sku,quantity\n${sku},5\n`, { account_id: String(b.id) });
    await getCtx().services.stock.runCount(named.body.id);
    expect((await onHand(b.id))[`${sku}@MAIN`]).to.equal(5);
  });

  it('When available falls to the threshold, Then one stock.low is sent per crossing, signed as the standardwebhooks library verifies', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const sku = acc.skus.active[0];
    const { secret } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/stock-low'),
      events: ['stock.low'],
    });
    await ctx.services.stock.setThreshold(acc.seller.actor, sku, { low_stock_threshold: 3 });
    await receive(acc, sku, 10); // a new level: nothing crossed
    const adjust = (quantity: number) =>
      ctx.services.stock.record(acc.seller.actor, { movements: [{ sku, kind: 'adjustment', quantity }] });
    await adjust(-6); // 10 → 4: above 3
    await adjust(-1); // 4 → 3: crossed
    await adjust(-2); // 3 → 1: still low, nothing
    await receive(acc, sku, 9); // 1 → 10: back above
    const lead = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [{ phone: '+212611223344', full_name: 'Low', products: [{ sku, quantity: 8, price: 100 }] }],
    });
    // the confirmation reserves 8: available 10 → 2, crossed again
    await ctx.services.leads.updateStatuses(acc.seller.actor, {
      leads: [{ reference: lead.references[0], status: 'confirmed' }],
    });
    while ((await ctx.services.webhooks.deliverDue()) > 0);
    const got = receiver.at('/stock-low');
    expect(got.map((r) => r.body.event)).to.deep.equal(['stock.low', 'stock.low']);
    expect(got.map((r) => r.body.data.stock.available)).to.deep.equal([3, 2]);
    expect(got[1].body.data.stock).to.include({
      sku,
      warehouse: 'MAIN',
      on_hand: 10,
      reserved: 8,
      available_before: 10,
      low_stock_threshold: 3,
    });
    for (const r of got) new Webhook(secret).verify(r.raw.toString('utf8'), r.headers as Record<string, string>);
    // another account's levels send nothing to this endpoint
    await receive(b, b.skus.active[2], 1);
    expect(receiver.at('/stock-low')).to.have.length(2);
  });
  it('When the levels are read a page at a time, Then the pages, for every size and filter, are the slices of the whole list', async () => {
    const stock = getCtx().services.stock;
    const key = (l: { sku: string; warehouse: string; on_hand: number }) => `${l.sku}@${l.warehouse}:${l.on_hand}`;
    for (const filter of [{}, { warehouse: 'FES' }, { sku: a.skus.active[1].toLowerCase() }]) {
      const whole = await stock.list(a.seller.actor, { ...filter, per_page: 100 });
      expect(whole.total).to.equal(whole.data.length);
      for (const perPage of [1, 2, 4, 5]) {
        const pages: string[] = [];
        for (let page = 1; page <= Math.ceil(whole.total / perPage) + 1; page++) {
          const got = await stock.list(a.seller.actor, { ...filter, per_page: perPage, page });
          expect(got.total).to.equal(whole.total);
          pages.push(...got.data.map(key));
        }
        expect(pages, `${JSON.stringify(filter)} by ${perPage}`).to.deep.equal(whole.data.map(key));
      }
    }
    // the total's count of active products is kept by triggers: a product deactivated, made again, added, deleted
    const total = async () => (await stock.list(a.seller.actor, {})).total;
    const before = await total();
    const sql = getCtx().db.sequelize;
    await sql.query('UPDATE products SET active = false WHERE account_id = $1 AND sku = $2', {
      bind: [a.id, a.skus.active[2]],
    });
    expect(await total()).to.equal(before - 2);
    await sql.query('UPDATE products SET active = true WHERE account_id = $1', { bind: [a.id] });
    expect(await total()).to.equal(before + 2); // the inactive one of the factory too
    await getCtx().services.catalogue.createProduct(systemActor(), {
      account_id: a.id,
      sku: 'EXTRA-1',
      name: 'E',
      price: 1,
    });
    expect(await total()).to.equal(before + 4);
    await sql.query("DELETE FROM products WHERE account_id = $1 AND sku IN ('EXTRA-1', $2)", {
      bind: [a.id, a.skus.inactive],
    });
    expect(await total()).to.equal(before);
    const [{ drift }] = await sql.query<{ drift: number }>(
      `SELECT count(*)::int AS drift
         FROM (SELECT account_id, count(*) FILTER (WHERE active) AS n FROM products GROUP BY account_id) p
         FULL JOIN product_counts c USING (account_id) WHERE coalesce(p.n, 0) <> coalesce(c.active, 0)`,
      { type: QueryTypes.SELECT },
    );
    expect(drift).to.equal(0);
  });
  it('When the stock migrations are reverted and applied again, Then their tables, triggers and functions go and come back', async () => {
    const context = getCtx().db.sequelize;
    const objects = async () => {
      const [rows] = await context.query(
        `SELECT (SELECT count(*) FROM pg_tables WHERE tablename IN
                  ('warehouses', 'stock_levels', 'stock_movements', 'product_counts', 'stock_follows'))::int AS tables,
                (SELECT count(*) FROM pg_trigger WHERE tgname IN ('stock_levels_webhooks', 'accounts_stock_movements',
                  'products_stock_movements', 'orders_stock_movements', 'users_stock_movements', 'products_counts_insert',
                  'products_counts_delete', 'products_counts_update', 'accounts_main_warehouse'))::int AS triggers`,
      );
      return rows[0];
    };
    expect(await objects()).to.deep.equal({ tables: 5, triggers: 9 });
    await getCtx().services.stock.follow(); // (its down refuses while shipments wait)
    await followsMigration.down({ name: 'stock-follows', context });
    await stockMigration.down({ name: 'stock', context });
    expect(await objects()).to.deep.equal({ tables: 0, triggers: 0 });
    await stockMigration.up({ name: 'stock', context });
    await followsMigration.up({ name: 'stock-follows', context });
    expect(await objects()).to.deep.equal({ tables: 5, triggers: 9 });
    // every account has its MAIN again and the counts of active products are right
    const [[{ missing }]] = (await context.query(
      `SELECT count(*)::int AS missing FROM accounts a
        WHERE NOT EXISTS (SELECT 1 FROM warehouses w WHERE w.account_id = a.id AND w.is_default)`,
    )) as [{ missing: number }[], unknown];
    expect(missing).to.equal(0);
  });
});
