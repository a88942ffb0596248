import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { ConnectionRefusedError, QueryTypes } from 'sequelize';
import { systemActor } from '../../src/actor.js';
import { arrayLiteral } from '../../src/leads/lead-batch.repository.js';
import { createImportService } from '../../src/transfers/import.service.js';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { captureSql, leadInsertPlan, useTestServer } from '../helpers.js';
import { login, type SessionClient } from '../session.js';

async function upload(c: SessionClient, name: string, content: Buffer | string) {
  const form = new FormData();
  form.append('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  const res = await c.fetch('/leads/import', { method: 'POST', body: form });
  return { status: res.status, body: await res.json() };
}

async function xlsxBuffer(rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Leads');
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** An account's leads as comparable values (what an export carries), by phone. */
async function leadShape(accountId: number, keep: (l: { full_name: string }) => boolean = () => true) {
  const rows = await getCtx().models.Lead.findAll({
    where: { account_id: accountId },
    include: ['products'],
    order: [
      ['phone', 'ASC'],
      ['products', 'position', 'ASC'],
    ],
  });
  return rows.filter(keep).map((l) => ({
    phone: l.phone,
    full_name: l.full_name,
    city: l.city,
    area: l.area,
    address: l.address,
    data: l.data,
    total: Number(l.total),
    products: (l as unknown as { products: { sku: string; quantity: number; price: number }[] }).products.map((p) => [
      p.sku,
      p.quantity,
      Number(p.price),
    ]),
  }));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const runImport = async (id: number) => {
  await getCtx().services.imports.run(id);
  return getCtx().models.ImportRun.findByPk(id);
};

describe('import and export', () => {
  const web = useTestServer();

  it('When the database goes away during an import, Then the run is not failed and its upload is kept: the job waits and resumes', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const file = await tmpFile('outage.csv', `phone,sku\n+212600770001,${acc.skus.active[0]}\n`);
    const run = await ctx.services.imports.start(acc.seller.actor, file);
    const stored = (await ctx.models.ImportRun.findByPk(run.id))!;
    // the batch write meets a database that does not answer
    const down = new Proxy(ctx.db.sequelize, {
      get: (target, key) =>
        key === 'transaction'
          ? () => Promise.reject(new ConnectionRefusedError(new Error('connect ECONNREFUSED')))
          : Reflect.get(target, key),
    });
    const imports = createImportService({ ...ctx, db: { ...ctx.db, sequelize: down } }, { leads: ctx.services.leads });
    const err = await imports.run(run.id).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).to.be.instanceOf(ConnectionRefusedError);
    expect((await stored.reload()).status).to.not.equal('failed');
    expect(fs.existsSync(stored.file_path!), 'the upload is kept for the rerun').to.equal(true);
    await ctx.services.imports.run(run.id); // the database is back: the job's rerun completes
    expect((await stored.reload()).toJSON()).to.include({ status: 'completed', rows_written: 1 });
  });

  it('imports a mixed CSV: good rows written with history, bad rows counted and reported by row and column', async () => {
    const acc = await makeAccount(getCtx());
    const [a, b] = acc.skus.active;
    const csv = [
      'Phone,SKU,Full_Name,City,Quantity,Price,utm_source',
      `+212600100001,${a},Nadia Ouali,Rabat,2,150,facebook`,
      `12,${a},Too Short,Rabat,1,100,`,
      `+212600100003,NO-SUCH,Unknown Sku,Fes,1,100,`,
      `+212600100004,${acc.skus.inactive},Inactive Sku,Fes,1,100,`,
      `+212600100005,${b},Default Price,Tanger,,,tiktok`,
    ].join('\n');
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const res = await upload(c, 'leads.csv', csv);
    expect(res.status).to.equal(202);
    expect(res.body.id).to.be.a('number');
    const run = await runImport(res.body.id);
    expect(run).to.include({ status: 'completed', rows_read: 5, rows_written: 2, rows_failed: 3, rows_total: 5 });
    const { Lead, LeadHistory } = getCtx().models;
    const leads = await Lead.findAll({ where: { account_id: acc.id }, order: [['import_row', 'ASC']] });
    expect(leads.map((l) => [l.phone, l.full_name, l.import_row])).to.deep.equal([
      ['+212600100001', 'Nadia Ouali', 2],
      ['+212600100005', 'Default Price', 6],
    ]);
    expect(leads[0].data).to.deep.equal([{ key: 'utm_source', value: 'facebook' }]);
    expect(Number(leads[1].total)).to.equal(200);
    expect((await LeadHistory.findOne({ where: { lead_id: leads[0].id } }))!.changed_by).to.equal(acc.seller.name);
    const progress = await c.json('GET', `/imports/${res.body.id}`);
    expect(progress.body.data).to.include({ status: 'completed', rows_written: 2, rows_failed: 3 });
    const report = await (await c.fetch(`/imports/${res.body.id}/report`, { headers: { accept: 'text/csv' } })).text();
    const lines = report.trim().split('\n');
    expect(lines[0]).to.equal('row,column,message');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).to.deep.equal(['3,phone', '4,sku', '5,sku']);
  });

  it('fails a run whose file has no sku column, with a clear message', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const res = await upload(c, 'leads.csv', 'phone,full_name\n+212600000009,No Sku Column\n');
    const run = await runImport(res.body.id);
    expect(run!.status).to.equal('failed');
    expect(run!.error).to.equal(
      'The file has no sku column (the first row must name the columns; phone and sku are required).',
    );
    expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(0);
  });

  it('imports an xlsx file and rejects a workbook renamed .csv, a binary and other extensions', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const incoming = path.join(getCtx().config.dataDir, 'uploads', 'incoming');
    const leftBefore = fs.readdirSync(incoming).length;
    const book = await xlsxBuffer([
      ['phone', 'sku', 'full_name'],
      ['+212600200001', acc.skus.active[2], 'Sheet Person'],
    ]);
    const ok = await upload(c, 'leads.xlsx', book);
    expect(ok.status).to.equal(202);
    expect(await runImport(ok.body.id)).to.include({ status: 'completed', rows_written: 1 });
    const renamed = await upload(c, 'leads.csv', book);
    expect(renamed.status).to.equal(422);
    expect(renamed.body.errors.file[0]).to.match(/not a valid \.csv/);
    expect((await upload(c, 'leads.csv', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]))).status).to.equal(422);
    expect((await upload(c, 'leads.txt', 'phone,sku\n')).status).to.equal(422);
    expect(await getCtx().models.ImportRun.count({ where: { account_id: acc.id } })).to.equal(1);
    expect(fs.readdirSync(incoming)).to.have.length(leftBefore);
  });

  it('finishes a run whose worker was killed mid-file with every row written exactly once', async function () {
    this.timeout(60_000);
    const acc = await makeAccount(getCtx());
    const total = 30_000;
    const rows = [
      'phone,sku',
      ...Array.from({ length: total }, (_, i) => `+2126${String(i).padStart(8, '0')},${acc.skus.active[0]}`),
      '1,bad',
    ];
    const run = await getCtx().services.imports.start(acc.seller.actor, await tmpFile('crash.csv', rows.join('\n')));
    const { ImportRun, Lead, ImportRunError } = getCtx().models;
    const worker = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/import-worker.ts', String(run.id)], {
      env: { ...process.env, DATABASE_URL: getCtx().db.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // the worker kills itself once its first batch has committed (test/fixtures/import-worker.ts)
    const signal = await new Promise((resolve) => worker.once('exit', (_code, sig) => resolve(sig)));
    expect(signal).to.equal('SIGKILL');
    const killed = (await ImportRun.findByPk(run.id))!;
    expect(killed.status).to.equal('running');
    expect(killed.cursor_row).to.be.greaterThan(1);
    expect(killed.cursor_row).to.be.lessThan(total);
    // What the dead worker committed is exactly the rows up to its cursor.
    expect(await Lead.count({ where: { account_id: acc.id } })).to.equal(killed.cursor_row - 1);

    await getCtx().services.imports.run(run.id);
    expect(await Lead.count({ where: { account_id: acc.id } })).to.equal(total);
    const [{ rows: distinct }] = await getCtx().db.sequelize.query<{ rows: number }>(
      'SELECT count(DISTINCT import_row)::int AS rows FROM leads WHERE account_id = $1',
      { bind: [acc.id], type: QueryTypes.SELECT },
    );
    expect(distinct).to.equal(total);
    const errors = await ImportRunError.findAll({ where: { import_run_id: run.id } });
    expect(new Set(errors.map((e) => e.row_number))).to.deep.equal(new Set([total + 2]));
    expect((await ImportRun.findByPk(run.id))!.toJSON()).to.include({
      status: 'completed',
      rows_read: total + 1,
      rows_written: total,
      rows_failed: 1,
    });
  });

  it('writes each row once when two attempts of a run overlap, and finds duplicates across batches written at once', async function () {
    this.timeout(60_000);
    const acc = await makeAccount(getCtx());
    const total = 12_000;
    const phone = (i: number) => `+2126${String(i).padStart(8, '0')}`;
    // Rows 6,000 and 11,000 share a phone; they fall in the third and fourth batches (1,000, 2,000, 4,000, 5,000 rows),
    // which are written at once.
    const rows = [
      'phone,sku',
      ...Array.from(
        { length: total },
        (_, i) => `${phone(i === 5998 || i === 10998 ? 0 : i + 1)},${acc.skus.active[0]}`,
      ),
    ];
    const run = await getCtx().services.imports.start(acc.seller.actor, await tmpFile('twice.csv', rows.join('\n')));
    await Promise.all([getCtx().services.imports.run(run.id), getCtx().services.imports.run(run.id)]);
    const { ImportRun, Lead } = getCtx().models;
    expect((await ImportRun.findByPk(run.id))!.toJSON()).to.include({
      status: 'completed',
      rows_read: total,
      rows_written: total,
      rows_failed: 0,
    });
    expect(await Lead.count({ where: { account_id: acc.id } })).to.equal(total);
    const repeated = await Lead.findAll({
      where: { account_id: acc.id, phone: phone(0) },
      order: [['import_row', 'ASC']],
    });
    expect(repeated.map((l) => [l.import_row, l.status])).to.deep.equal([
      [6000, 'new'],
      [11000, 'duplicate'],
    ]);
  });

  it('checks each phone for a duplicate through the phone index, even for an account statistics do not know yet', async function () {
    // Until ANALYZE counts a new account, it is estimated at about one row, and every index led by account_id looked as
    // cheap as the phone index: PostgreSQL 15 probed through (account_id, city_id), reading the whole account for each
    // phone (57 s for 5,000 phones at 100 k leads; migration 20261126100000, docs/performance.md).
    this.timeout(60_000);
    const acc = await makeAccount(getCtx());
    const { sequelize } = getCtx().db;
    await sequelize.query('ANALYZE leads');
    const item = (i: number) => ({
      phone: `+2125${String(i).padStart(8, '0')}`,
      full_name: `Lead ${i}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 5 }],
    });
    const create = (items: unknown[]) => getCtx().services.leads.createMany(acc.seller.actor, { leads: items });
    for (let k = 0; k < 3; k++) await create(Array.from({ length: 1000 }, (_, i) => item(k * 1000 + i)));
    const { sent } = await captureSql(sequelize, () => create(Array.from({ length: 200 }, (_, i) => item(i * 7))));
    const plan = await leadInsertPlan(sequelize, sent);
    const scans = plan.match(/Scan[^\n]* on leads\b[^\n]*/g) ?? [];
    expect(scans, plan).to.have.length(1);
    expect(scans[0], plan).to.match(/^Scan using leads_phone_account_idx on leads l\b/);
    const statuses = await getCtx().models.Lead.count({ where: { account_id: acc.id, status: 'duplicate' } });
    expect(statuses).to.equal(200);
  });

  it('sends text lists as array literals that PostgreSQL reads back as the same strings', async () => {
    const { sequelize } = getCtx().db;
    expect(arrayLiteral(['a"b\\c', null, '', 'NULL', '{x,y}'])).to.equal('{"a\\"b\\\\c",null,"","NULL","{x,y}"}');
    // a control character or a lone surrogate is left to pg's own serialisation
    expect(arrayLiteral(['a\nb'])).to.deep.equal(['a\nb']);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.string({ unit: 'binary', maxLength: 20 }).map((s) => s.replace(/\0/g, ''))), {
          maxLength: 20,
        }),
        async (values) => {
          const [row] = await sequelize.query<{ back: (string | null)[] }>('SELECT $1::text[] AS back', {
            bind: [arrayLiteral(values)],
            type: QueryTypes.SELECT,
          });
          // pg sends a lone surrogate as U+FFFD, whichever way the list went
          expect(row.back).to.deep.equal(values.map((v) => v?.replace(LONE_SURROGATE, '\ufffd') ?? null));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('denies agents import and export with 403', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.agent.email, acc.agent.password);
    expect((await upload(c, 'leads.csv', 'phone,sku\n')).status).to.equal(403);
    expect((await c.json('POST', '/leads/export', { file_extension: 'csv' })).status).to.equal(403);
    expect((await c.json('GET', '/imports')).status).to.equal(403);
  });

  it('exports with the list filters and round-trips: importing the export into a fresh account gives the same leads', async () => {
    const acc = await makeAccount(getCtx());
    const leads = getCtx().services.leads;
    await leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212600400001',
          full_name: '=HYPERLINK("x")',
          city: 'Rabat',
          area: 'Agdal',
          address: '1 Avenue Fal',
          data: [{ key: 'utm', value: 'fb' }],
          products: [
            { sku: acc.skus.active[0], quantity: 2, price: 120 },
            { sku: acc.skus.active[1], quantity: 1, price: 80.5 },
          ],
        },
        {
          phone: '0600400002',
          full_name: '-Second Lead',
          city: 'Fes',
          area: '@Agdal',
          products: [{ sku: acc.skus.active[1], quantity: 1, price: 80 }],
        },
        {
          phone: '0600400003',
          full_name: 'Filtered Out',
          city: 'Fes',
          products: [{ sku: acc.skus.active[1], quantity: 1, price: 80 }],
        },
      ],
    });
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    expect((await c.json('POST', '/leads/export', { file_extension: 'pdf' })).status).to.equal(422);
    const res = await c.json('POST', '/leads/export', { file_extension: 'csv', search: 'a' });
    expect(res.status).to.equal(202);
    await getCtx().services.exports.run(res.body.id);
    const file = await c.fetch(`/exports/${res.body.id}/download`, { headers: { accept: 'text/csv' } });
    expect(file.status).to.equal(200);
    const text = await file.text();
    expect(text).to.include(`'=HYPERLINK`).and.include("'-Second Lead,Fes,'@Agdal");
    expect(text).to.not.include('Filtered Out');
    expect(text.trim().split('\n')).to.have.length(3);
    const hostile = await c.json('POST', '/leads/export', {
      file_extension: 'csv',
      search: "x'); DELETE FROM leads; -- \\'",
    });
    await getCtx().services.exports.run(hostile.body.id);
    expect((await getCtx().models.ExportRun.findByPk(hostile.body.id))!.toJSON()).to.include({
      status: 'completed',
      rows_written: 0,
    });
    expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(3);

    const fresh = await makeAccount(getCtx());
    for (const sku of acc.skus.active)
      await getCtx().services.catalogue.createProduct(systemActor(), {
        account_id: fresh.id,
        sku,
        name: sku,
        price: 1,
      });
    const run = await getCtx().services.imports.start(fresh.seller.actor, await tmpFile('roundtrip.csv', text));
    await getCtx().services.imports.run(run.id);
    const shape = await leadShape(fresh.id, (l) => l.full_name !== 'Filtered Out');
    expect(shape).to.deep.equal(await leadShape(acc.id, (l) => l.full_name !== 'Filtered Out'));
    expect(shape.find((l) => l.phone === '+212600400001')!.products).to.deep.equal([
      [acc.skus.active[0], 2, 120],
      [acc.skus.active[1], 1, 80.5],
    ]);

    // An edited first product (sku, quantity or price no longer the first entry of `products`) wins alone.
    const [a, b] = acc.skus.active;
    const edited = await getCtx().services.imports.start(
      fresh.seller.actor,
      await tmpFile(
        'edited.csv',
        `phone,sku,quantity,price,products\n0600400007,${b},3,80,${a} x2 @ 120; ${b} x1 @ 80\n0600400008,${a},2,120,"${a} x2 @ 120; ${b} x1 @ 80"\n`,
      ),
    );
    expect((await runImport(edited.id))!.toJSON()).to.include({ status: 'completed', rows_written: 2 });
    const byPhone = new Map((await leadShape(fresh.id)).map((l) => [l.phone, l.products]));
    expect(byPhone.get('0600400007')).to.deep.equal([[b, 3, 80]]);
    expect(byPhone.get('0600400008')).to.deep.equal([
      [a, 2, 120],
      [b, 1, 80],
    ]);
  });

  it('writes a CSV export newest first with every lead once, across the two halves it is formatted in', async () => {
    const acc = await makeAccount(getCtx());
    const leads = Array.from({ length: 9 }, (_, i) => ({
      phone: `+2126006000${String(i).padStart(2, '0')}`,
      full_name: `Spread ${i}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 5 }],
    }));
    await getCtx().services.leads.createMany(acc.seller.actor, { leads });
    // created_at spread over days, with ties at the middle of the span (both sides of the split point)
    await getCtx().db.sequelize.query(
      `UPDATE leads SET created_at = timestamptz '2026-01-01' + make_interval(days => CASE WHEN substr(phone, 12)::int BETWEEN 3 AND 5 THEN 4 ELSE substr(phone, 12)::int END)
        WHERE account_id = $1`,
      { bind: [acc.id] },
    );
    const expected = (
      await getCtx().db.sequelize.query<{ reference: string }>(
        'SELECT reference FROM leads WHERE account_id = $1 ORDER BY created_at DESC, id DESC',
        { bind: [acc.id], type: QueryTypes.SELECT },
      )
    ).map((r) => r.reference);
    const run = await getCtx().services.exports.start(acc.seller.actor, { file_extension: 'csv' });
    await getCtx().services.exports.run(run.id);
    const done = (await getCtx().models.ExportRun.findByPk(run.id))!;
    expect(done.toJSON()).to.include({ status: 'completed', rows_written: 9 });
    const lines = (await fs.promises.readFile(done.file_path!, 'utf8'))
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).to.match(/^reference,status,phone/);
    expect(lines.slice(1).map((l) => l.split(',')[0])).to.deep.equal(expected);
    expect(fs.existsSync(`${done.file_path}.older`)).to.equal(false);
  });

  it('fails an export whose file cannot be written, with the reason, and the next export still works', async () => {
    const acc = await makeAccount(getCtx());
    await getCtx().services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212600600001',
          full_name: 'Blocked Export',
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
        },
      ],
    });
    const { ExportRun } = getCtx().models;
    const blocked = await getCtx().services.exports.start(acc.seller.actor, { file_extension: 'csv' });
    // A directory where the file should go: the write fails while COPY is streaming.
    const target = path.join(getCtx().config.dataDir, 'exports', String(acc.id), `${blocked.id}.csv`);
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target, { recursive: true });
    try {
      await getCtx().services.exports.run(blocked.id);
    } finally {
      fs.rmSync(target, { recursive: true, force: true }); // ids restart with the next run's fresh schema
    }
    const failed = (await ExportRun.findByPk(blocked.id))!;
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.match(/EISDIR|directory/i);
    for (let i = 0; i < 3; i++) {
      const next = await getCtx().services.exports.start(acc.seller.actor, { file_extension: 'csv' });
      await getCtx().services.exports.run(next.id);
      expect((await ExportRun.findByPk(next.id))!.toJSON()).to.include({ status: 'completed', rows_written: 1 });
    }
  });

  it('writes xlsx exports that round-trip, serves them only to their account and answers 410 once expired', async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    await getCtx().services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212600500001',
          full_name: 'Excel Lead',
          products: [
            { sku: acc.skus.active[0], quantity: 1, price: 10 },
            { sku: acc.skus.active[1], quantity: 3, price: 0.5 + 1 },
            { sku: acc.skus.active[0], quantity: 2, price: 99.99 },
          ],
        },
        {
          phone: '0600500002',
          full_name: 'Back\\slash \\N Zoé',
          city: 'Tab\tCity',
          area: '=SUM(A1)',
          address: 'Line 1\nLine 2',
          data: [{ key: 'note', value: 'a\tb\\c' }],
          products: [{ sku: acc.skus.active[1], quantity: 2, price: 12.5 }],
        },
      ],
    });
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const res = await c.json('POST', '/leads/export', { file_extension: 'xlsx' });
    await getCtx().services.exports.run(res.body.id);
    const dl = await c.fetch(`/exports/${res.body.id}/download`, { headers: { accept: '*/*' } });
    expect(dl.status).to.equal(200);
    const book = Buffer.from(await dl.arrayBuffer());
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(book as never);
    const ws = wb.worksheets[0];
    const excel = [2, 3].map((r) => ws.getRow(r)).find((r) => r.getCell(4).value === 'Excel Lead')!;
    expect(excel.getCell(3).value).to.equal("'+212600500001");
    expect([
      excel.getCell(9).value,
      excel.getCell(10).value,
      excel.getCell(12).value,
      excel.getCell(6).value,
    ]).to.deep.equal([1, 10, 214.48, null]);
    const fresh = await makeAccount(getCtx());
    for (const sku of acc.skus.active)
      await getCtx().services.catalogue.createProduct(systemActor(), {
        account_id: fresh.id,
        sku,
        name: sku,
        price: 1,
      });
    const file = path.join(os.tmpdir(), `${Date.now()}-roundtrip.xlsx`);
    await fs.promises.writeFile(file, book);
    const again = await getCtx().services.imports.start(fresh.seller.actor, {
      path: file,
      originalname: 'roundtrip.xlsx',
      size: (await fs.promises.stat(file)).size,
    });
    await getCtx().services.imports.run(again.id);
    expect(await leadShape(fresh.id)).to.deep.equal(await leadShape(acc.id));
    const stranger = await login(web.url, other.seller.email, other.seller.password);
    expect((await stranger.fetch(`/exports/${res.body.id}/download`)).status).to.equal(404);
    expect((await c.json('GET', '/exports')).body.data[0]).to.include({
      id: res.body.id,
      status: 'completed',
      rows_written: 2,
    });
    await getCtx().models.ExportRun.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: res.body.id } });
    expect(await getCtx().services.exports.removeExpired()).to.be.greaterThan(0);
    expect((await c.fetch(`/exports/${res.body.id}/download`)).status).to.equal(410);
  });
});

async function tmpFile(name: string, content: string) {
  const p = path.join(os.tmpdir(), `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
  await fs.promises.writeFile(p, content);
  return { path: p, originalname: name, size: Buffer.byteLength(content) };
}
