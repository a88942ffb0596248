import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login } from '../session.js';

const directives = (policy: string | null) =>
  Object.fromEntries((policy ?? '').split(';').map((s) => [s.trim().split(' ')[0], s.trim()]));

describe('Content-Security-Policy header', function () {
  this.timeout(120_000);
  const web = useTestServer();

  it('When any HTML page is asked for, Then it carries a policy with a fresh nonce and no unsafe script source', async () => {
    const acc = await makeAccount(getCtx());
    const client = await login(web.url, acc.seller.email, acc.seller.password);
    const nonces = new Set<string>();
    for (const path of [
      '/login',
      '/reset-password',
      '/reset-password/unknown',
      '/api/docs',
      '/admin',
      '/leads/import',
    ]) {
      for (let i = 0; i < 2; i++) {
        const res = await client.fetch(path, { headers: { accept: 'text/html' } });
        expect(res.headers.get('content-type'), path).to.match(/^text\/html/);
        const d = directives(res.headers.get('content-security-policy'));
        expect(d['script-src'], path)
          .to.match(/^script-src 'self' 'nonce-[^']+'/)
          .and.not.include('unsafe');
        expect(d['default-src'], path).to.equal("default-src 'self'");
        expect(d['object-src'], path).to.equal("object-src 'none'");
        nonces.add(/'nonce-([^']+)'/.exec(d['script-src'])![1]);
        const html = await res.text();
        if (path === '/admin')
          expect(html).to.include(`<script nonce="${/'nonce-([^']+)'/.exec(d['script-src'])![1]}">`);
      }
    }
    expect(nonces.size).to.equal(12);
  });

  it("When the panel's state holds a closing script tag, Then the layout's script stays one script and only the layout's blocks get the nonce", async () => {
    const { markPanelLayout } = await import('../../admin/panel-csp.js');
    const layout = (data: string) => `<html><head>
      <script>
        window.REDUX_STATE = ${JSON.stringify({ name: data })};
        window.AdminJS = { Components: {} };
      </script>
      <script src="/admin/frontend/assets/app.bundle.js"></script>
      <style>body{}</style>
    </head>
    <body><div id="app" />
      <script>root.render(AdminJS.Application);</script>
    </body></html>`;
    const out = markPanelLayout(layout('</script><script>alert(1)</script>'), 'N0NCE');
    expect(out.match(/<script nonce="N0NCE">/g)).to.have.length(2);
    expect(out.match(/<style nonce="N0NCE">/g)).to.have.length(1);
    expect(out).to.not.include('<script>alert(1)');
    expect(out).to.include('\\u003c/script>\\u003cscript>alert(1)\\u003c/script>');
  });
});
