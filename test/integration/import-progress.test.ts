import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import pg from 'pg';
import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import { countCsvRows, countXlsxRows, csvRowsFromSample } from '../../src/transfers/import-total.js';
import * as migration from '../../migrations/20261130100000-import-total.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, type SessionClient } from '../session.js';
import { chromiumAvailable, launch, loginAs, shot } from '../e2e/browser.js';

interface RunView {
  id: number;
  status: string;
  rows_total: number | null;
  rows_total_estimated: boolean;
  rows_done: number;
  rows_read: number;
  rows_written: number;
  rows_failed: number;
  percent: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function upload(c: SessionClient, name: string, content: Buffer | string) {
  const form = new FormData();
  form.append('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  const res = await c.fetch('/leads/import', { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as { id: number; data: RunView } };
}

const readRun = async (c: SessionClient, id: number) =>
  (await c.json<{ data: RunView }>('GET', `/imports/${id}`)).body.data;

/** `rows` data rows after a header; row i (0-based) sells `skuOf(i)`; phones are possible Moroccan mobiles. */
const csvOf = (rows: number, skuOf: (i: number) => string) =>
  [
    'phone,sku,full_name',
    ...Array.from({ length: rows }, (_, i) => `+2126${String(i).padStart(8, '0')},${skuOf(i)},Buyer ${i}`),
  ].join('\n') + '\n';

async function xlsxOf(rows: number, skuOf: (i: number) => string): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Leads');
  ws.addRow(['phone', 'sku', 'full_name']);
  for (let i = 0; i < rows; i++) ws.addRow([`+2126${String(i).padStart(8, '0')}`, skuOf(i), `Buyer ${i}`]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** The workbook with its sheet's `<dimension …/>` replaced (or removed with ''). */
async function withDimension(xlsx: Buffer, dimension: string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(xlsx);
  const sheet = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
  zip.file('xl/worksheets/sheet1.xml', sheet.replace(/<dimension [^>]*\/>/, dimension));
  return Buffer.from(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
}

async function tmpFile(name: string, content: string | Buffer) {
  const p = path.join(os.tmpdir(), `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
  await fs.promises.writeFile(p, content);
  return p;
}

/**
 * Holds a product row FOR UPDATE on a connection of its own: a batch whose leads sell that product waits at its
 * parent check (FOR KEY SHARE) until release, so the import really runs and really stops partway, with what was
 * committed before that batch visible. Nothing of the import is replaced.
 */
async function holdProduct(acc: TestAccount, sku: string) {
  const client = new pg.Client({ connectionString: getCtx().db.url });
  await client.connect();
  await client.query('BEGIN');
  const { rowCount } = await client.query('SELECT id FROM products WHERE account_id = $1 AND sku = $2 FOR UPDATE', [
    acc.id,
    sku,
  ]);
  expect(rowCount).to.equal(1);
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Object.assign(
    async () => {
      await client.query('COMMIT');
      await client.end();
    },
    { pid: rows[0].pid },
  );
}

/**
 * True once a connection waits on the holder's lock: the import's batch, at the held product. Only a wait on that
 * holder counts: another file's job waiting on some other lock of the shard's database is not the import's stall (it
 * made the test read the run mid-flight once, 7,000 rows done while the database already held 12,000).
 */
async function waitsOnALock(holder: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: getCtx().db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
      [holder],
    );
    return rows[0].n > 0;
  } finally {
    await client.end();
  }
}

/**
 * Reads the run once the import waits at the held product's lock (seen in pg_stat_activity: an event, not two reads
 * some time apart, which a batch slower than that on a busy machine fooled) and has committed some rows.
 */
async function readUntilStalled(c: SessionClient, id: number, seen: RunView[], holder: number): Promise<RunView> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (await waitsOnALock(holder)) {
      const now = await readRun(c, id);
      seen.push(now);
      // stalled, and its count of the batches committed before the stall written (it may come a moment after them)
      const held = await getCtx().models.Lead.count({ where: { import_run_id: id } });
      if (now.rows_done > 0 && now.rows_done === held) return now;
    }
    await sleep(50);
  }
  throw new Error(`the import never stalled: ${JSON.stringify(seen.at(-1))}`);
}

describe('import total and progress', function () {
  this.timeout(120_000);
  const web = useTestServer();

  it('When a 30,000-row CSV import runs, Then GET /imports/{id} gives its total from the start and the rows done as batches commit, before it finishes', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const [first, second] = acc.skus.active;
    const up = await upload(
      seller,
      'big.csv',
      csvOf(30_000, (i) => (i < 15_000 ? first : second)),
    );
    expect(up.status).to.equal(202);

    // queued: the total is already there, estimated from the file's size and labelled so
    const queued = await readRun(seller, up.body.id);
    expect(queued).to.include({ status: 'queued', rows_total_estimated: true, rows_done: 0, percent: 0 });
    expect(queued.rows_total).to.be.within(28_500, 31_500);

    const release = await holdProduct(acc, second);
    let finished = false;
    const job = ctx.services.imports.run(up.body.id).finally(() => (finished = true));
    const seen: RunView[] = [];
    let running: RunView;
    try {
      running = await readUntilStalled(seller, up.body.id, seen, release.pid);
      expect(finished, 'the import is still running').to.equal(false);
      // counted in the first pass, before any batch
      expect(running).to.include({ status: 'running', rows_total: 30_000, rows_total_estimated: false });
      expect(running.rows_done).to.be.greaterThan(0).and.below(15_000);
      expect(running.percent).to.equal(Math.floor((running.rows_done * 100) / 30_000));
      expect(running.percent).to.be.greaterThan(0).and.below(100);
      // what it says is done is what the database holds
      expect(await ctx.models.Lead.count({ where: { import_run_id: up.body.id } })).to.equal(running.rows_done);
    } finally {
      await release();
    }
    await job;

    const done = await readRun(seller, up.body.id);
    expect(done).to.include({ status: 'completed', rows_total: 30_000, rows_total_estimated: false, percent: 100 });
    expect(done.rows_done).to.equal(30_000);
    // every read had a total: the estimate (labelled) until the count replaced it, the count from then on
    expect(seen.filter((s) => s.rows_total === null)).to.deep.equal([]);
    expect(seen.filter((s) => !s.rows_total_estimated && s.rows_total !== 30_000)).to.deep.equal([]);
    const dones = seen.map((s) => s.rows_done);
    expect(dones, 'rows done never go back').to.deep.equal([...dones].sort((a, b) => a - b));
  });

  it("When an xlsx import runs, Then its total is read from the sheet's dimension before the first batch commits", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const [first, second] = acc.skus.active;
    const up = await upload(seller, 'big.xlsx', await xlsxOf(3000, (i) => (i < 1000 ? first : second)));
    expect(up.status).to.equal(202);
    // a workbook is not opened in the upload request (its real size is checked by the job): no total yet
    expect(await readRun(seller, up.body.id)).to.include({ status: 'queued', rows_total: null, percent: null });

    const release = await holdProduct(acc, second);
    const job = ctx.services.imports.run(up.body.id);
    try {
      const running = await readUntilStalled(seller, up.body.id, [], release.pid);
      expect(running).to.include({ status: 'running', rows_total: 3000, rows_total_estimated: false });
      expect(running.rows_done).to.equal(1000);
      expect(running.percent).to.equal(33);
    } finally {
      await release();
    }
    await job;
    expect(await readRun(seller, up.body.id)).to.include({ status: 'completed', rows_total: 3000, rows_done: 3000 });
  });

  it('When a workbook has no dimension, or one that is a single cell or says too much, Then its rows are counted or the dimension taken, and the end gives the rows read', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const plain = await xlsxOf(120, () => acc.skus.active[0]);
    const cases: [string, Buffer, number][] = [
      ['no dimension', await withDimension(plain, ''), 120],
      ['a single cell', await withDimension(plain, '<dimension ref="A1"/>'), 120],
      ['a range larger than the rows', await withDimension(plain, '<dimension ref="A1:C5001"/>'), 5000],
      ['the right range', plain, 120],
    ];
    for (const [what, xlsx, expected] of cases) {
      expect(await countXlsxRows(await tmpFile('dim.xlsx', xlsx)), what).to.deep.equal({
        total: expected,
        estimated: false,
      });
    }
    // a range that says too much is corrected to the rows read when the run completes
    const up = await upload(seller, 'lying.xlsx', cases[2][1]);
    await ctx.services.imports.run(up.body.id);
    expect(await readRun(seller, up.body.id)).to.include({
      status: 'completed',
      rows_total: 120,
      rows_done: 120,
      rows_total_estimated: false,
      percent: 100,
    });
  });

  it('When a CSV has quoted line breaks, CRLF, blank lines and a BOM, Then the count is the rows the import reads', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const sku = acc.skus.active[0];
    const csv =
      '\uFEFFphone,sku,full_name,address\r\n' +
      `+212600000001,${sku},"Two\r\nlines","quoted ""comma"", here"\r\n` +
      '\r\n' +
      `+212600000002,${sku},Plain,"three\nline\raddress"\r\n` +
      '  \t \r\n\n\r\n' +
      `+212600000003,${sku},Stray,x\ry\r\n` +
      `+212600000004,${sku},Last,"no line break at the end"`;
    expect(await countCsvRows(await tmpFile('odd.csv', csv))).to.deep.equal({ total: 4, estimated: false });
    const up = await upload(seller, 'odd.csv', csv);
    // the whole file is in the sample read at upload: counted there, not estimated
    expect(up.body.data).to.include({ rows_total: 4, rows_total_estimated: false, rows_done: 0, percent: 0 });
    await ctx.services.imports.run(up.body.id);
    const done = await readRun(seller, up.body.id);
    expect(done).to.include({ status: 'completed', rows_total: 4, rows_done: 4, percent: 100 });
    expect(done.rows_written + done.rows_failed).to.equal(4);
  });

  it('When any CSV the reader accepts is counted, Then the count is the records csv-parse gives, whatever the line breaks', () => {
    const piece = fc.constantFrom(
      'a',
      'b c',
      ' ',
      '\t',
      ',',
      '\n',
      '\r',
      '\r\n',
      '""',
      '"x"',
      '"a,\nb"',
      '"q""r"',
      '"\r\n"',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        let records: unknown[];
        try {
          records = parseCsv(text, { bom: true, relax_column_count: true, skip_empty_lines: true, trim: true });
        } catch {
          return true; // a file the reader refuses fails the run; its count does not matter
        }
        const buf = Buffer.from(text);
        expect(csvRowsFromSample(buf, buf.length), JSON.stringify(text)).to.deep.equal({
          total: Math.max(0, records.length - 1),
          estimated: false,
        });
        return true;
      }),
      { numRuns: 3000 },
    );
  });

  it('When a CSV is larger than the sample, Then its total is estimated at upload and labelled so, then counted as the run starts', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    // rows of uneven width, so the estimate is an estimate
    const csv = csvOf(4000, (i) => acc.skus.active[i % 3]).replace(
      /Buyer (\d+)/g,
      (_, n) => `Buyer ${'x'.repeat(n % 40)}`,
    );
    const up = await upload(seller, 'wide.csv', csv);
    expect(up.body.data.rows_total_estimated).to.equal(true);
    expect(up.body.data.rows_total).to.be.within(3600, 4400);
    await ctx.services.imports.run(up.body.id);
    const done = await readRun(seller, up.body.id);
    expect(done).to.include({ status: 'completed', rows_total: 4000, rows_total_estimated: false, rows_done: 4000 });
    // the list carries the same figures
    const list = (await seller.json<{ data: RunView[] }>('GET', '/imports')).body.data;
    expect(list.find((r) => r.id === up.body.id)).to.include({ rows_total: 4000, rows_done: 4000, percent: 100 });
  });

  it('When a run is shown in the panel, Then its record carries the figures the progress bar draws', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const up = await upload(
      seller,
      'few.csv',
      csvOf(10, () => acc.skus.active[0]),
    );
    const list = await seller.json('GET', '/admin/api/resources/import_runs/actions/list');
    expect(list.status).to.equal(200);
    const record = list.body.records.find((r: { id: string }) => Number(r.id) === up.body.id);
    expect(record.params).to.include({ status: 'queued', rows_total: 10, rows_total_estimated: false, rows_read: 0 });
    const show = await seller.json('GET', `/admin/api/resources/import_runs/records/${up.body.id}/show`);
    expect(show.body.record.params).to.include({ rows_total: 10 });
  });
});

describe('the import-total migration', () => {
  it('When it is reverted and applied again, Then the flag goes and comes back, false for the runs already there', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const run = await ctx.services.imports.start(acc.seller.actor, {
      path: await tmpFile(
        'm.csv',
        csvOf(3, () => acc.skus.active[0]),
      ),
      originalname: 'm.csv',
      size: 200,
    });
    const context = ctx.db.sequelize;
    const column = async () =>
      (
        await context.query(
          "SELECT 1 FROM information_schema.columns WHERE table_name = 'import_runs' AND column_name = 'rows_total_estimated'",
        )
      )[0].length;
    await migration.down({ name: 'import-total', context });
    expect(await column()).to.equal(0);
    await migration.up({ name: 'import-total', context });
    expect(await column()).to.equal(1);
    expect((await ctx.models.ImportRun.findByPk(run.id))!.rows_total_estimated).to.equal(false);
  });
});

describe('the progress bar in Chromium', function () {
  this.timeout(180_000);
  const web = useTestServer();

  it('When an import runs, Then the import runs list draws its bar at the committed share and follows it to 100 %', async function () {
    if (!chromiumAvailable()) this.skip();
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const [first, second] = acc.skus.active;
    const up = await upload(
      seller,
      'bar.csv',
      csvOf(4000, (i) => (i < 1000 ? first : second)),
    );
    const release = await holdProduct(acc, second);
    const job = ctx.services.imports.run(up.body.id);
    const browser = await launch();
    try {
      await readUntilStalled(seller, up.body.id, [], release.pid);
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      await loginAs(page, web.url, acc.seller.email, acc.seller.password);
      await page.goto(`${web.url}/admin/resources/import_runs`);
      const bar = page.locator('[role=progressbar]').first();
      await bar.waitFor({ timeout: 90_000 });
      expect(await bar.getAttribute('aria-valuenow')).to.equal('25');
      await page.waitForSelector('text=1,000 / 4,000 rows (25%)');
      await shot(page, 'import-runs-progress');
      await release();
      // the bar follows the run without a reload
      await page.waitForSelector('[role=progressbar][aria-valuenow="100"]', { timeout: 30_000 });
      await page.waitForSelector('text=4,000 / 4,000 rows (100%)');
    } finally {
      await release().catch(() => {});
      await job;
      await browser.close();
    }
  });
});

describe('GET /exports/{id}', () => {
  const web = useTestServer();

  it("When a seller reads an export by id, Then it is the list's shape; another account's id, an agent and bad ids are refused like the download", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const stranger = await login(web.url, other.seller.email, other.seller.password);
    const agent = await login(web.url, acc.agent.email, acc.agent.password);
    const admin = await makeAdmin(ctx);
    const back = await login(web.url, admin.email, admin.password);

    const started = await seller.json('POST', '/leads/export', { file_extension: 'csv', status: 'new' });
    expect(started.status).to.equal(202);
    const id = started.body.id as number;
    const one = await seller.json('GET', `/exports/${id}`);
    expect(one.status).to.equal(200);
    const listed = (await seller.json('GET', '/exports')).body.data.find((r: { id: number }) => r.id === id);
    expect(one.body).to.deep.equal({ data: listed });
    expect(one.body.data).to.include({
      id,
      account_id: acc.id,
      status: 'queued',
      file_extension: 'csv',
      rows_written: 0,
    });
    expect(one.body.data.filters).to.deep.equal({ status: 'new' });

    await ctx.services.exports.run(id);
    expect((await seller.json('GET', `/exports/${id}`)).body.data).to.include({ status: 'completed' });
    expect((await back.json('GET', `/exports/${id}`)).status).to.equal(200);

    // the same answers as the download: another account's id is not found, an agent is refused
    for (const [who, status] of [
      [stranger, 404],
      [agent, 403],
    ] as const) {
      expect((await who.json('GET', `/exports/${id}`)).status).to.equal(status);
      expect((await who.fetch(`/exports/${id}/download`)).status).to.equal(status);
    }
    for (const bad of ['abc', '1e99', '%00', '0', '-1', '1.5', '99999999999', String(id) + '%00', 'x'.repeat(300)]) {
      const res = await seller.json('GET', `/exports/${bad}`);
      expect(res.status, bad).to.equal(404);
      expect(res.body, bad).to.have.property('message');
    }
    // GET only: the other methods are no route, as elsewhere
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await seller.json(method, `/exports/${id}`, {});
      expect(res.status, method).to.equal(404);
    }
    expect((await seller.json('GET', `/exports/${id}`)).body.data.status).to.equal('completed');
    // unauthenticated: like every dashboard route
    expect((await fetch(`${web.url}/exports/${id}`, { headers: { accept: 'application/json' } })).status).to.equal(401);
  });
});
