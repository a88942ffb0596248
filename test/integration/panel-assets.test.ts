import { expect } from 'chai';
import http from 'node:http';
import zlib from 'node:zlib';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, type SessionClient } from '../session.js';

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** A GET with the session's cookie, read as sent (fetch would decompress and hide the bytes on the wire). */
function rawGet(url: string, c: SessionClient, headers: Record<string, string> = {}): Promise<Raw> {
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { cookie, ...headers }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const SCRIPTS = ['global.bundle.js', 'design-system.bundle.js', 'app.bundle.js', 'components.bundle.js'];

describe('the panel over a real connection (issue 41): hashed, compressed, cached assets', function () {
  this.timeout(120_000);
  const web = useTestServer();
  let c: SessionClient;
  let links: string[];

  before(async () => {
    const acc = await makeAccount(getCtx());
    await getCtx().services.leads.createMany(acc.seller.actor, {
      leads: Array.from({ length: 20 }, (_, i) => ({
        phone: `+2126${String(acc.id % 10000).padStart(4, '0')}${String(i).padStart(4, '0')}`,
        full_name: `Light Page ${i}`,
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
      })),
    });
    c = await login(web.url, acc.seller.email, acc.seller.password);
    const page = await rawGet(`${web.url}/admin/resources/leads`, c, { accept: 'text/html' });
    expect(page.status).to.equal(200);
    expect(page.headers['cache-control'], 'the HTML carries the user and a nonce').to.equal('no-store');
    links = [...page.body.toString().matchAll(/(?:src|href)="(\/admin\/frontend\/assets\/[^"]+)"/g)].map((m) => m[1]);
  });

  it('When a panel page is served, Then it links each bundle and the stylesheet by a content-hashed name, with no query', () => {
    for (const name of [...SCRIPTS, 'leadflow-panel.css']) {
      const [base, ext] = [name.slice(0, name.lastIndexOf('.')), name.slice(name.lastIndexOf('.'))];
      expect(
        links.filter((l) => l === `/admin/frontend/assets/${base}.${l.split('.').at(-2)}${ext}`),
        name,
      ).to.have.length(1);
    }
    for (const l of links) expect(l, l).to.match(/\.[0-9a-f]{16}\.(js|css)$/);
  });

  it('When a hashed asset is asked for, Then it comes compressed (brotli, else gzip) and cached for a year as immutable; plain, it is the same bytes', async () => {
    let wire = 0;
    let plainTotal = 0;
    for (const link of links) {
      const br = await rawGet(`${web.url}${link}`, c, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.status, link).to.equal(200);
      expect(br.headers['content-encoding'], link).to.equal('br');
      expect(br.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(br.headers.vary).to.match(/Accept-Encoding/i);
      const gz = await rawGet(`${web.url}${link}`, c, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).to.equal('gzip');
      const plain = await rawGet(`${web.url}${link}`, c);
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(zlib.brotliDecompressSync(br.body).equals(plain.body), link).to.equal(true);
      expect(zlib.gunzipSync(gz.body).equals(plain.body), link).to.equal(true);
      wire += br.body.length;
      plainTotal += plain.body.length;
    }
    // AdminJS's minified bundles, not its 26 MB development build (what `npm start` sent before)
    expect(plainTotal, 'bytes of the page assets').to.be.below(5_000_000);
    expect(wire / plainTotal, 'compressed share').to.be.below(0.35);
  });

  it('When the browser revalidates, or asks by the plain name or an old hash, Then it gets 304, or the current bytes revalidated each time', async () => {
    const link = links.find((l) => l.includes('/app.bundle.'))!;
    const first = await rawGet(`${web.url}${link}`, c, { 'accept-encoding': 'br' });
    const again = await rawGet(`${web.url}${link}`, c, {
      'accept-encoding': 'br',
      'if-none-match': String(first.headers.etag),
    });
    expect(again.status).to.equal(304);
    for (const path of [
      '/admin/frontend/assets/app.bundle.js',
      '/admin/frontend/assets/app.bundle.0123456789abcdef.js',
    ]) {
      const other = await rawGet(`${web.url}${path}`, c, { 'accept-encoding': 'br' });
      expect(other.status, path).to.equal(200);
      expect(other.headers['cache-control'], path).to.equal('no-cache');
      expect(other.body.equals(first.body), path).to.equal(true);
    }
  });

  it('When a panel page or a JSON answer of the panel is asked for by a browser, Then it comes compressed and uncached', async () => {
    for (const [path, accept] of [
      ['/admin/resources/leads', 'text/html'],
      ['/admin/api/resources/leads/actions/list', 'application/json'],
    ]) {
      const gz = await rawGet(`${web.url}${path}`, c, { accept, 'accept-encoding': 'gzip, deflate' });
      const plain = await rawGet(`${web.url}${path}`, c, { accept });
      expect(gz.status, path).to.equal(200);
      expect(gz.headers['content-encoding'], path).to.equal('gzip');
      expect(plain.headers['content-encoding'], path).to.equal(undefined);
      expect(zlib.gunzipSync(gz.body).length, path).to.be.closeTo(plain.body.length, 2000);
      expect(gz.body.length, path).to.be.below(plain.body.length / 3);
      expect(String(gz.headers['cache-control'] ?? ''), path).to.not.match(/public|max-age=[1-9]/);
    }
  });

  it('When a visitor without a session asks for an asset or a page, Then they are sent to the login page', async () => {
    const anonymous = await rawGet(`${web.url}${links[0]}`, { cookies: new Map() } as SessionClient);
    expect(anonymous.status).to.equal(302);
    expect(anonymous.headers.location).to.match(/^\/login/);
  });
});
