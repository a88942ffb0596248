import { expect } from 'chai';
import { formSnippet } from '../../src/sources/form-snippet.js';

interface Tag {
  name: string;
  attrs: Record<string, string>;
}

const unescape = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** The start tags of an HTML fragment with their attributes (double-quoted values or bare), as a browser reads them. */
function tags(html: string): Tag[] {
  const found: Tag[] = [];
  for (const m of html.matchAll(/<([a-z]+)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*>/g)) {
    const attrs: Record<string, string> = {};
    for (const a of m[2].matchAll(/([a-z-]+)(?:="([^"]*)")?/g)) attrs[a[1]] = unescape(a[2] ?? '');
    found.push({ name: m[1], attrs });
  }
  return found;
}

const inputs = (html: string) => tags(html).filter((t) => t.name === 'input');

describe('The form snippet', () => {
  const html = formSnippet({ public_key: 'pk_abc123', kind: 'form' }, 'https://leads.example.com/');

  it('When a seller copies it, Then it is one plain POST form to the source endpoint of the app', () => {
    const forms = tags(html).filter((t) => t.name === 'form');
    expect(forms).to.have.length(1);
    expect(forms[0].attrs.method).to.equal('post');
    expect(forms[0].attrs.action).to.equal('https://leads.example.com/api/web/1.0/intake/forms/pk_abc123');
  });

  it('When it is read, Then it has the named fields, phone and full name required, each with an English label', () => {
    const byName = Object.fromEntries(inputs(html).map((t) => [t.attrs.name, t.attrs]));
    expect(Object.keys(byName)).to.include.members(['full_name', 'phone', 'city', 'address', 'website']);
    expect(byName.phone).to.include({ type: 'tel' }).and.to.have.property('required');
    expect(byName.full_name).to.have.property('required');
    expect(byName.city).to.not.have.property('required');
    const labels = [...html.matchAll(/<label for="([^"]+)">([^<]+)<\/label>/g)].map((m) => [m[1], m[2]]);
    expect(labels).to.deep.include.members([
      ['lf-full_name', 'Full name'],
      ['lf-phone', 'Phone'],
    ]);
  });

  it('When it is read, Then the honeypot is empty, out of the tab order, never autofilled and hidden from people', () => {
    const honeypot = inputs(html).find((t) => t.attrs.name === 'website')!;
    expect(honeypot.attrs).to.include({ value: '', tabindex: '-1', autocomplete: 'off' });
    expect(html).to.match(
      /<div style="position:absolute;left:-10000px[^"]*" aria-hidden="true">\s*<label[^>]*>[^<]*<\/label>\s*<input id="lf-website"/,
    );
  });

  it('When it is read, Then the five utm fields are hidden inputs the inline script fills from the address', () => {
    const utm = inputs(html).filter((t) => t.attrs.name?.startsWith('utm_'));
    expect(utm.map((t) => t.attrs.name)).to.deep.equal([
      'utm_source',
      'utm_medium',
      'utm_campaign',
      'utm_term',
      'utm_content',
    ]);
    for (const t of utm) expect(t.attrs.type).to.equal('hidden');
    expect(html).to.include('new URLSearchParams(window.location.search)');
    expect(tags(html).filter((t) => t.name === 'script')[0].attrs).to.deep.equal({}); // inline, nothing fetched
  });

  it('When the key or the address carry markup, Then it stays inside the action attribute', () => {
    const hostile = formSnippet(
      { public_key: '"><script>x()</script>', kind: 'form' },
      'https://a.example/"onmouseover="y',
    );
    const forms = tags(hostile).filter((t) => t.name === 'form');
    expect(forms).to.have.length(1);
    expect(forms[0].attrs.action).to.equal(
      'https://a.example/"onmouseover="y/api/web/1.0/intake/forms/%22%3E%3Cscript%3Ex()%3C%2Fscript%3E',
    );
    expect(forms[0].attrs).to.not.have.property('onmouseover');
    expect(tags(hostile).filter((t) => t.name === 'script')).to.have.length(1);
  });
});
