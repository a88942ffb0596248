import fs from 'node:fs';
import { expect } from 'chai';
import { createApp } from '../../app/web.js';
import { openApiDocument } from '../../api/openapi.js';
import { OPERATIONS } from '../../api/openapi-operations.js';
import { getCtx } from '../hooks.js';
import { expressRoutes } from '../routes.js';

/** `/leads/:reference/show` → `/leads/{reference}/show`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** The rows of docs/api.md's "Operations" table: `METHOD /path` and its scope column. */
function documentedInApiMd(): Map<string, string> {
  const md = fs.readFileSync('docs/api.md', 'utf8');
  const section = md.slice(md.indexOf('## Operations'), md.indexOf('\n## ', md.indexOf('## Operations') + 3));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `(GET|POST|PUT|DELETE) ([^`]+)` \| ([^|]+) \|/gm))
    rows.set(`${m[1].toLowerCase()} ${m[2]}`, m[3].trim());
  return rows;
}

describe('the OpenAPI document against the router and docs/api.md', () => {
  it('When the REST router serves an operation, Then the document has it, and the reverse', async () => {
    const app = await createApp(getCtx());
    const served = expressRoutes(app as never)
      .filter((r) => r.mount === '/api/web/1.0')
      .map((r) => `${r.method} ${openApiPath(r.path)}`);
    const doc = openApiDocument();
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(served.length).to.be.greaterThan(20);
    expect([...new Set(served)].sort()).to.deep.equal([...new Set(documented)].sort());
  });

  it('When docs/api.md lists the operations, Then each is in the document with the same scope, and the reverse', () => {
    const rows = documentedInApiMd();
    const scopeOf = (o: { scope: string }) => o.scope.replace(' and ', ' + ');
    const expected = new Map<string, string>([
      ...OPERATIONS.map((o) => [`${o.method} ${o.path}`, scopeOf(o)] as [string, string]),
      ['post /shipping/{code}/callback', 'none (signed)'],
      ['post /intake/shopify/{public_key}', 'none (signed)'],
      ['post /intake/woocommerce/{public_key}', 'none (signed)'],
      ['get /openapi.json', 'none'],
    ]);
    expect(Object.fromEntries(rows)).to.deep.equal(Object.fromEntries(expected));
    const md = fs.readFileSync('docs/api.md', 'utf8');
    // the bodies the table points at, the DELETE /leads body among them, and the refusals
    expect(md).to.include('{"references":["LD7K2M9QX4TB","LD9F4R2W8JQA"]}');
    for (const status of [400, 401, 403, 404, 405, 409, 413, 422, 429, 500, 503])
      expect(md).to.match(new RegExp(`^\\| ${status} \\|`, 'm'));
  });
});
