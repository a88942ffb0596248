import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import JSZip from 'jszip';
import { makeAccount, makeCarrier } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { appOf, expressRoutes } from '../routes.js';
import { login } from '../session.js';

/** Counts of every table a REST write touches, to show that a refused request changed nothing. */
async function snapshot(): Promise<Record<string, number>> {
  const m = getCtx().models;
  return {
    leads: await m.Lead.count(),
    orders: await m.Order.count(),
    leadHistories: await m.LeadHistory.count(),
    orderHistories: await m.OrderHistory.count(),
  };
}

describe('bad input', () => {
  const web = useTestServer();

  it('answers 422 naming the field for a NUL or other control character anywhere in a REST body or query, and changes nothing', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    const lead = {
      phone: '+212600000001',
      full_name: 'Karim',
      city: 'Fes',
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    };
    const [leadRef] = (await call('POST', '/leads', { leads: [lead] })).body.references;
    const [orderRef] = (await call('POST', '/orders', { orders: [{ ...lead, address: '1 Rue' }] })).body.references;
    await makeCarrier(getCtx(), acc.id);
    const cases: [string, string, unknown, string][] = [
      ['POST', '/leads', { leads: [{ ...lead, full_name: 'Ka\u0000rim' }] }, 'leads.0.full_name'],
      ['POST', '/leads', { leads: [{ ...lead, data: { 'k\u0000': 'v' } }] }, 'leads.0.data'],
      ['POST', '/leads', { leads: [{ ...lead, data: { note: 'a\u001bb' } }] }, 'leads.0.data.note'],
      ['PUT', '/leads', { leads: [{ reference: leadRef, status: 'wrong', note: 'x\u0000' }] }, 'leads.0.note'],
      ['PUT', '/leads', { leads: [{ reference: `${leadRef}\u0000`, status: 'wrong' }] }, 'leads.0.reference'],
      ['DELETE', '/leads', { references: [`\u0000${leadRef}`] }, 'references.0'],
      ['POST', '/orders', { orders: [{ ...lead, address: 'Rue\u0000 1' }] }, 'orders.0.address'],
      ['PUT', '/orders', { orders: [{ reference: orderRef, status: 'canceled\u0000' }] }, 'orders.0.status'],
      ['POST', '/orders/push', { references: [orderRef], shipping_company: 'fast\u0000' }, 'shipping_company'],
      ['GET', '/leads?search_by=full_name&keyWord=a%00b', undefined, 'keyWord'],
      ['GET', '/orders?keyWord=%7F', undefined, 'keyWord'],
    ];
    const before = await snapshot();
    for (const [method, path, body, field] of cases) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).to.equal(422);
      expect(res.body.errors, `${method} ${path}`).to.have.property(field);
      expect(res.body.errors[field][0]).to.equal(`The ${field} field must not contain control characters.`);
    }
    expect(await snapshot()).to.deep.equal(before);
    // Tab, line feed and carriage return stay allowed in text.
    expect((await call('POST', '/leads', { leads: [{ ...lead, address: 'Bloc A\n\tRue 2\r\n' }] })).status).to.equal(
      201,
    );
  });

  it('answers 422 for dates that are not real calendar dates or lie outside 1970–9999, in filters and fields', async () => {
    const acc = await makeAccount(getCtx());
    const call = restClient(web.url, await acc.token());
    const lead = {
      phone: '+212600000001',
      full_name: 'Karim',
      city: 'Fes',
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    };
    const [ref] = (await call('POST', '/leads', { leads: [lead] })).body.references;
    const bad: [string, string, unknown, string][] = [
      ['GET', '/lead-histories?since=-271821-04-20T00:00:00.000Z', undefined, 'since'],
      ['GET', '/order-histories?since=275760-09-13T00:00:00.000Z', undefined, 'since'],
      [
        'PUT',
        '/leads',
        { leads: [{ reference: ref, status: 'call_later', action_date: '2026-02-31T10:00:00+01:00' }] },
        'leads.0.action_date',
      ],
      [
        'PUT',
        '/leads',
        { leads: [{ reference: ref, status: 'call_later', action_date: '2026-04-31T10:00:00+01:00' }] },
        'leads.0.action_date',
      ],
    ];
    for (const [method, path, body, field] of bad) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(422);
      expect(res.body.errors, `${method} ${path}`).to.have.property(field);
    }
    // The dashboard's list filters (session routes).
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    for (const q of [
      'created_from=2026-02-31',
      'created_to=1969-12-31T23:59:59Z',
      'created_from=-271821-04-20T00:00:00.000Z',
    ]) {
      const res = await seller.json('GET', `/leads?${q}`);
      expect(res.status, q).to.equal(422);
      expect(res.body.errors, q).to.have.property(q.split('=')[0]);
    }
    expect((await seller.json('GET', '/leads?created_from=2024-02-29')).status).to.equal(200);
    // an API key's expiry: a real day in the future
    const keyCount = () => getCtx().models.ApiToken.count({ where: { account_id: acc.id } });
    const keysBefore = await keyCount();
    for (const expires_at of ['2099-02-31', '2020-01-01', '0000-01-01']) {
      const res = await seller.json('POST', '/settings/api-keys/generate', {
        name: 'expiring',
        scopes: ['VIEW LEADS'],
        expires_at,
      });
      expect(res.status, expires_at).to.equal(422);
      expect(res.body.errors, expires_at).to.have.property('expires_at');
    }
    expect(await keyCount()).to.equal(keysBefore);
    expect(
      (
        await seller.json('POST', '/settings/api-keys/generate', {
          name: 'expiring',
          scopes: ['VIEW LEADS'],
          expires_at: '2099-02-28',
        })
      ).status,
    ).to.equal(201);
    expect((await call('GET', '/lead-histories?since=2026-01-01T00:00:00.000Z')).status).to.equal(200);
    expect(
      (
        await call('PUT', '/leads', {
          leads: [{ reference: ref, status: 'call_later', action_date: '2028-02-29T10:00:00+01:00' }],
        })
      ).status,
    ).to.equal(200);
    expect((await getCtx().models.Lead.findOne({ where: { reference: ref } }))!.action_date!.toISOString()).to.equal(
      '2028-02-29T09:00:00.000Z',
    );
  });

  it('answers every route that takes an id or reference in its path with 4xx, never 5xx, for ids that name no row', async function () {
    // ≈ 1,000 requests (12 s alone; past mocha's 30 s once in CI at load 18 on 2 cores)
    this.timeout(120_000);
    const acc = await makeAccount(getCtx());
    const seller = await login(web.url, acc.seller.email, acc.seller.password);
    const token = await acc.token();
    const routes = expressRoutes(appOf(web.server)).filter((r) => r.path.includes(':'));
    expect(routes.length).to.be.greaterThan(8);
    for (const { method, path, mount } of routes) {
      for (const bad of ['abc', '99999999999', '0', '-1', '1e3', '%00', '1.5', 'x'.repeat(300)]) {
        const url = path.replace(/:[a-z_]+/gi, bad);
        const res =
          mount === '/api/web/1.0'
            ? await restClient(web.url, token)(method.toUpperCase(), url, method === 'get' ? undefined : {})
            : await seller.json(method.toUpperCase(), url, method === 'get' ? undefined : {});
        expect(res.status, `${method} ${mount}${url}`).to.be.within(400, 499);
      }
    }
    // The panel is mounted through a loader Express cannot list: its record routes come from its own resources.
    await seller.json('GET', '/admin/api/resources/leads/actions/list');
    const { builtPanel } = await import('../../admin/admin.js');
    const resources = builtPanel()!.resources.map((r) => r.id());
    expect(resources.length).to.be.greaterThan(8);
    for (const rid of resources) {
      for (const bad of ['abc', '99999999999', '0', '-1', '1e3', '%00', '1.5', 'x'.repeat(300)]) {
        for (const [method, action] of [
          ['GET', 'show'],
          ['POST', 'edit'],
          ['POST', 'delete'],
        ] as const) {
          // from a page of this origin, as the panel's own writes are, so the handlers themselves are reached
          const res = await seller.fetch(`/admin/api/resources/${rid}/records/${bad}/${action}`, {
            method,
            headers: { origin: web.url },
            ...(method === 'POST' ? { json: {} } : {}),
          });
          expect(res.status, `${method} panel ${rid} ${bad} ${action}`).to.be.below(500);
        }
      }
    }
  });

  it('When a CSV row after the first 64 KB holds a NUL byte, Then that row is reported, the rest imported and the upload removed; a failed run removes its upload too', async () => {
    const acc = await makeAccount(getCtx());
    const rows = [
      'phone,full_name,sku',
      ...Array.from(
        { length: 3000 },
        (_, i) => `+2126${String(i).padStart(8, '0')},Buyer number ${i},${acc.skus.active[0]}`,
      ),
    ];
    rows[2500] = `+212699999999,Bad\u0000Row,${acc.skus.active[0]}`;
    const file = path.join(os.tmpdir(), `nul-${Date.now()}.csv`);
    fs.writeFileSync(file, rows.join('\n'));
    const run = await getCtx().services.imports.start(acc.seller.actor, {
      path: file,
      originalname: 'nul.csv',
      size: fs.statSync(file).size,
    });
    const stored = (await getCtx().models.ImportRun.findByPk(run.id))!.file_path;
    await getCtx().services.imports.run(run.id);
    const done = (await getCtx().models.ImportRun.findByPk(run.id))!;
    expect({ status: done.status, written: done.rows_written, failed: done.rows_failed }).to.deep.equal({
      status: 'completed',
      written: 2999,
      failed: 1,
    });
    const report = await getCtx().services.imports.errors(acc.seller.actor, run.id);
    expect(JSON.stringify(report)).to.include('must not contain control characters');
    expect(fs.existsSync(stored)).to.equal(false);

    const empty = path.join(os.tmpdir(), `empty-${Date.now()}.csv`);
    fs.writeFileSync(empty, 'name,city\nx,y\n');
    const bad = await getCtx().services.imports.start(acc.seller.actor, {
      path: empty,
      originalname: 'cols.csv',
      size: fs.statSync(empty).size,
    });
    const badStored = (await getCtx().models.ImportRun.findByPk(bad.id))!.file_path;
    await getCtx().services.imports.run(bad.id);
    expect((await getCtx().models.ImportRun.findByPk(bad.id))!.status).to.equal('failed');
    expect(fs.existsSync(badStored)).to.equal(false);
  });

  it('refuses an xlsx decompression bomb at upload, reading only its directory (memory stays flat)', async function () {
    this.timeout(60_000);
    const acc = await makeAccount(getCtx());
    const file = path.join(os.tmpdir(), `bomb-${Date.now()}.xlsx`);
    fs.writeFileSync(file, await bombWorkbook());
    expect(fs.statSync(file).size).to.be.below(1024 * 1024);
    const rssBefore = process.memoryUsage().rss;
    const err = await getCtx()
      .services.imports.start(acc.seller.actor, { path: file, originalname: 'bomb.xlsx', size: fs.statSync(file).size })
      .then(
        () => null,
        (e) => e,
      );
    expect(process.memoryUsage().rss - rssBefore).to.be.below(32 * 1024 * 1024);
    expect(err?.errors?.file?.[0]).to.match(/decompression bomb|shared strings expand/);
    expect(await getCtx().models.ImportRun.count({ where: { account_id: acc.id } })).to.equal(0);
    expect(fs.existsSync(file)).to.equal(false);
  });
});

/** A workbook of 2 million shared strings (≈ 84 MB of XML) compressed below 1 MB. */
async function bombWorkbook(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
  );
  zip.file('xl/workbook.xml', '<workbook/>');
  zip.file(
    'xl/sharedStrings.xml',
    `<sst>${'<si><t>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</t></si>'.repeat(2_000_000)}</sst>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

describe('bad input: a workbook whose zip directory lies', () => {
  it('fails the import of a bomb whose directory claims small sizes when the job inflates it, memory flat, upload removed', async function () {
    this.timeout(60_000);
    const acc = await makeAccount(getCtx());
    const zip = await bombWorkbook();
    // every central-directory entry claims to inflate to its compressed size: the upload check sees nothing wrong
    const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    for (let i = 0, at = zip.readUInt32LE(eocd + 16); i < zip.readUInt16LE(eocd + 10); i++) {
      zip.writeUInt32LE(zip.readUInt32LE(at + 20), at + 24);
      at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    }
    const file = path.join(os.tmpdir(), `liar-${Date.now()}.xlsx`);
    fs.writeFileSync(file, zip);
    const run = await getCtx().services.imports.start(acc.seller.actor, {
      path: file,
      originalname: 'liar.xlsx',
      size: zip.length,
    });
    const stored = (await getCtx().models.ImportRun.findByPk(run.id))!;
    const rssBefore = process.memoryUsage().rss;
    await getCtx().services.imports.run(run.id);
    expect(process.memoryUsage().rss - rssBefore).to.be.below(48 * 1024 * 1024);
    expect((await stored.reload()).toJSON()).to.include({ status: 'failed', rows_written: 0 });
    expect(stored.error).to.match(/shared strings expand to more than/);
    expect(fs.existsSync(stored.file_path!)).to.equal(false);
  });
});
