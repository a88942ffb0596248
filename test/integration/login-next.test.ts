import { expect } from 'chai';
import { safeNext } from '../../admin/routes/auth.routes.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { formLogin } from '../session.js';

const SITE = 'http://leadflow.test';

/**
 * Every `next` built from the pieces attackers combine: slashes and backslashes (raw and percent-encoded), dot
 * segments, control characters, scheme prefixes, then a host. None may lead off the site.
 */
function hostileNexts(): string[] {
  const starts = ['', '/', '//', '///', '/\\', '\\', '/.', '/..', '/./', '/../', '/.//', '/..//', '/././/', '/%2F'];
  const middles = ['', '/', '\\', '%2F', '%2f', '%5C', '%2F%2F', '\t', '\n', '\r', ' ', '%09', '/./', '/../', '.'];
  const schemes = ['', 'https:', 'http:', 'https://', 'javascript:', 'HTTPS:', ' https:', 'data:'];
  const list = new Set<string>();
  for (const scheme of schemes)
    for (const start of starts) for (const middle of middles) list.add(`${scheme}${start}${middle}evil.example/x`);
  for (const v of ['%2F%2Fevil.example', '/\t/evil.example', '/\n/evil.example', '/..\\evil.example']) list.add(v);
  return [...list];
}

describe('next after login', () => {
  const web = useTestServer();

  it('When next is any of the hostile variants, Then the redirect target resolves on this site, at a path only', () => {
    const variants = hostileNexts();
    expect(variants.length).to.be.above(1000);
    for (const next of variants) {
      const target = safeNext(next);
      // read as a browser reads a Location header: relative to the page's URL
      const landed = new URL(target, `${SITE}/login`);
      expect(landed.origin, JSON.stringify(next)).to.equal(SITE);
      expect(target, JSON.stringify(next)).to.match(/^\/(?![/\\])/);
      expect(target, JSON.stringify(next)).to.not.match(/[\\\s]/);
    }
  });

  it('When next is a path of this site, Then it is kept, normalised', () => {
    expect(safeNext('/leads?status=new#top')).to.equal('/leads?status=new#top');
    expect(safeNext('/admin/resources/leads')).to.equal('/admin/resources/leads');
    expect(safeNext('/admin/./resources/../pages/kpi')).to.equal('/admin/pages/kpi');
    expect(safeNext('/%2F%2Fevil.example')).to.equal('/%2F%2Fevil.example'); // a path of this site, not a host
  });

  it('When the login form carries next=/.//evil.example, Then the browser is sent to /admin', async () => {
    const acc = await makeAccount(getCtx());
    for (const next of ['/.//evil.example', '/..//evil.example', '/./\\evil.example']) {
      const res = await formLogin(web.url, acc.seller.email, acc.seller.password, { next });
      expect(res.status, next).to.equal(303);
      expect(new URL(res.headers.get('location')!, web.url).origin, next).to.equal(new URL(web.url).origin);
    }
  });
});
