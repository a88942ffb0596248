import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login, type SessionClient } from '../session.js';
import { streamFields } from '../stream-body.js';

const MB = 1024 * 1024;

describe('Bodies after identity', () => {
  let web: Awaited<ReturnType<typeof startTestServer>>;
  let acc: TestAccount;
  let seller: SessionClient;
  let agent: SessionClient;
  const incoming = () => fs.readdirSync(path.join(getCtx().config.dataDir, 'uploads', 'incoming'));

  before(async function () {
    this.timeout(120_000);
    web = await startTestServer();
    acc = await makeAccount(getCtx());
    seller = await login(web.url, acc.seller.email, acc.seller.password);
    agent = await login(web.url, acc.agent.email, acc.agent.password);
    // the panel loads in the background after start: loaded now, its memory is not counted as a request's
    expect((await seller.fetch('/admin/api/resources/products/actions/list')).status).to.equal(200);
  });
  after(async () => {
    await web.close();
  });

  const sessionHeaders = (c: SessionClient) => ({
    cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    'x-csrf-token': c.csrf,
    accept: 'application/json',
  });

  it('When an agent streams 200 MB of text fields to /leads/import, then 403 comes before the body is sent and memory stays flat', async function () {
    this.timeout(120_000);
    const res = await streamFields(web.url, '/leads/import', sessionHeaders(agent), 200);
    expect(res.status).to.equal(403);
    expect(JSON.parse(res.body)).to.deep.equal({ message: 'This action is unauthorized.' });
    expect(res.sentBytes, 'bytes sent before the answer').to.be.below(50 * MB);
    expect(res.peakGrowth, 'memory growth of the process serving it').to.be.below(50 * MB);
    expect((await seller.fetch('/imports')).status, 'the process still serves').to.equal(200);
  });

  it('When a stranger (no session) streams text fields to /leads/import, then 401 comes before the body is sent', async function () {
    this.timeout(60_000);
    const res = await streamFields(web.url, '/leads/import', { accept: 'application/json' }, 100);
    expect(res.status).to.equal(401);
    expect(res.sentBytes).to.be.below(50 * MB);
  });

  it('When a stranger or an agent posts a JSON or form body the routes would refuse, then identity and role answer first: the body is never read', async () => {
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    // a body that is read answers 422 (a prototype-named key) or 400 (not JSON): 401 and 403 show it was not read
    for (const [url, headers, body] of [
      ['/leads/store', json, '{"constructor":1}'],
      ['/leads/store', json, '{not json'],
      ['/webhooks', form, 'constructor=1'],
      ['/leads/import', json, '{"constructor":1}'],
    ] as const) {
      const res = await fetch(`${web.url}${url}`, { method: 'POST', headers, body });
      expect(res.status, `stranger ${url} ${body}`).to.equal(401);
    }
    for (const body of ['{"constructor":1}', '{not json']) {
      const res = await fetch(`${web.url}/leads/import`, {
        method: 'POST',
        headers: { ...sessionHeaders(agent), 'content-type': 'application/json' },
        body,
      });
      expect(res.status, `agent /leads/import ${body}`).to.equal(403);
    }
  });

  it('When a seller sends many or large text fields to /leads/import, then 413 without holding them, no temp file left', async function () {
    this.timeout(120_000);
    const many = await streamFields(web.url, '/leads/import', sessionHeaders(seller), 100);
    expect(many.status, many.body).to.equal(413);
    expect(JSON.parse(many.body)).to.deep.equal({ message: 'The request body is too large.' });
    // multer reads a refused body to its end before answering (no EPIPE for the client), dropping what it reads
    expect(many.peakGrowth, 'memory growth of the process serving it').to.be.below(50 * MB);

    const form = new FormData();
    form.append('note', 'x'.repeat(5000));
    form.append('file', new Blob(['phone,sku\n+212600000001,SKU-1\n']), 'leads.csv');
    const large = await seller.fetch('/leads/import', { method: 'POST', body: form });
    expect(large.status).to.equal(413);

    const lots = new FormData();
    for (let i = 0; i < 10; i++) lots.append(`f${i}`, 'v');
    expect((await seller.fetch('/leads/import', { method: 'POST', body: lots })).status).to.equal(413);

    const two = new FormData();
    two.append('file', new Blob(['phone,sku\n']), 'a.csv');
    two.append('file', new Blob(['phone,sku\n']), 'b.csv');
    const twoFiles = await seller.fetch('/leads/import', { method: 'POST', body: two });
    expect(twoFiles.status).to.equal(422);
    expect((await twoFiles.json()).errors).to.have.key('file');
    expect(incoming(), 'temp uploads').to.deep.equal([]);
    expect((await seller.fetch('/imports')).status, 'the process still serves').to.equal(200);
  });

  it('When a seller uploads a file as the form sends it, then the import is queued as before', async () => {
    const form = new FormData();
    form.append('file', new Blob(['phone,sku\n+212600000001,SKU-1\n']), 'leads.csv');
    const res = await seller.fetch('/leads/import', { method: 'POST', body: form });
    expect(res.status).to.equal(202);
    expect(incoming()).to.deep.equal([]);
  });

  describe('under /admin', () => {
    let tmp: string;
    let savedTmp: string | undefined;
    beforeEach(() => {
      // formidable writes to os.tmpdir(), read per request: a directory of this test's own shows what it left
      savedTmp = process.env.TMPDIR;
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panel-upload-'));
      process.env.TMPDIR = tmp;
    });
    afterEach(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      fs.rmSync(tmp, { recursive: true, force: true });
    });
    const post = (c: SessionClient, target: string, body: FormData) =>
      c.fetch(`/admin/api/resources/${target}`, { method: 'POST', body, headers: { origin: web.url } });

    it('When a panel request carries a file part, then 422 and nothing is written to the temp dir', async () => {
      const form = new FormData();
      form.append('name', 'With a file');
      form.append('upload', new Blob([Buffer.alloc(2 * MB, 1)]), 'big.bin');
      const res = await post(seller, 'products/actions/new', form);
      expect(res.status).to.equal(422);
      expect((await res.json()).message).to.be.a('string');
      expect(fs.readdirSync(tmp)).to.deep.equal([]);
      expect(await getCtx().models.Product.count({ where: { name: 'With a file' } })).to.equal(0);
    });

    it('When a panel form has too many or too large fields, then 413', async () => {
      const many = new FormData();
      for (let i = 0; i < 1001; i++) many.append(`f${i}`, 'v');
      expect((await post(seller, 'products/actions/new', many)).status).to.equal(413);
      const large = new FormData();
      large.append('name', 'x'.repeat(MB + 10));
      expect((await post(seller, 'products/actions/new', large)).status).to.equal(413);
      const text = await seller.fetch('/admin/api/resources/products/actions/new', {
        method: 'POST',
        body: 'name=x',
        headers: { origin: web.url, 'content-type': 'text/plain' },
      });
      expect(text.status).to.equal(415);
      expect(fs.readdirSync(tmp)).to.deep.equal([]);
    });

    it('When a panel form is posted as multipart (as AdminJS does), then the record is created and edited', async () => {
      const sku = `MP-${Date.now()}`;
      const form = new FormData();
      for (const [k, v] of Object.entries({ sku, name: 'Multipart Product', price: '12.5', active: 'true' }))
        form.append(k, v);
      const created = await post(seller, 'products/actions/new', form);
      expect(created.status).to.equal(200);
      const product = await getCtx().models.Product.findOne({ where: { sku, account_id: acc.id } });
      expect(product, 'created').to.not.equal(null);
      const edit = new FormData();
      edit.append('name', 'Renamed Multipart');
      expect((await post(seller, `products/records/${product!.id}/edit`, edit)).status).to.equal(200);
      await product!.reload();
      expect(product!.get('name')).to.equal('Renamed Multipart');
      expect(fs.readdirSync(tmp)).to.deep.equal([]);
    });
  });

  describe('REST', () => {
    it('When a token is invalid, then 401 comes before a 5 MB body is parsed (not 400 for its bad JSON)', async () => {
      const body = '{' + 'x'.repeat(5 * MB - 10);
      const res = await fetch(`${web.url}/api/web/1.0/leads`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer 1|not-a-token',
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body,
      });
      expect(res.status).to.equal(401);
      const none = await fetch(`${web.url}/api/web/1.0/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{broken',
      });
      expect(none.status).to.equal(401);
    });

    it('When a stranger streams a large body, then 401 comes before it is sent', async function () {
      this.timeout(60_000);
      const res = await streamFields(web.url, '/api/web/1.0/leads', { accept: 'application/json' }, 100);
      expect(res.status).to.equal(401);
      expect(res.sentBytes).to.be.below(50 * MB);
    });

    it('When a valid token sends a body, then it is still parsed: bad JSON is 400, a body access_token is ignored', async () => {
      const token = await acc.token();
      const bad = await fetch(`${web.url}/api/web/1.0/leads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{broken',
      });
      expect(bad.status).to.equal(400);
      const bodyToken = await fetch(`${web.url}/api/web/1.0/leads`, {
        headers: { 'content-type': 'application/json' },
        method: 'POST',
        body: JSON.stringify({ access_token: token, data: [] }),
      });
      expect(bodyToken.status).to.equal(401);
    });
  });
});
