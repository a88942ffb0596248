import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Document } from 'openapi-backend';
import { openApiDocument } from '../../api/openapi.js';
import { EXAMPLES } from '../../api/openapi.js';
import { contractOf, takeViolations, watchAnswers, type Answer } from '../openapi-contract.js';

const doc = openApiDocument() as unknown as Document;
const budget = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1796029200' };
const json = { 'content-type': 'application/json; charset=utf-8' };
const shown = EXAMPLES['get /leads/{reference}/show'].response as { data: Record<string, unknown> };
const show = (body: unknown, status = 200, headers: Answer['headers'] = { ...json, ...budget }): Answer => ({
  method: 'GET',
  url: '/api/web/1.0/leads/LD7K2M9QX4TB/show',
  status,
  headers,
  body: JSON.stringify(body),
});

describe('the REST contract hook (test/openapi-contract.ts): a wrong answer fails the suite', () => {
  it('When answers are as documented, Then the validator finds nothing', async () => {
    const check = await contractOf(doc);
    expect(check(show(shown))).to.deep.equal([]);
    expect(check(show({ message: 'Not found.' }, 404))).to.deep.equal([]);
    const unknown = { method: 'GET', url: '/api/web/1.0/nothing', status: 404, headers: json, body: '{"message":"x"}' };
    expect(check(unknown)).to.deep.equal([]);
    expect(check({ ...unknown, method: 'PATCH', url: '/api/web/1.0/leads', status: 405 })).to.deep.equal([]);
  });

  it('When an answer has an undocumented field, status, shape or header, or lacks a documented one, Then each is a violation', async () => {
    const check = await contractOf(doc);
    const extra = check(show({ data: { ...shown.data, internal_id: 7 } }));
    expect(extra.join()).to.match(/getLeadsReferenceShow.*must NOT have additional properties.*internal_id/);
    const { total: _t, ...missing } = shown.data;
    expect(check(show({ data: missing })).join()).to.match(/must have required property.*total/);
    expect(check(show({ data: { ...shown.data, status: 'lost' } })).join()).to.match(/must be equal to one of/);
    expect(check(show(shown, 418)).join()).to.match(/status 418 is not documented/);
    expect(check(show({ message: 'Not found.', trace: 'at x.js:1' }, 404)).join()).to.match(/additional properties/);
    expect(check(show({ message: 'no', errors: { a: 'b' } }, 422)).join()).to.match(/must be array/);
    const noBudget = check(show(shown, 200, json));
    expect(noBudget.join()).to.match(/must have required property 'x-ratelimit-limit'/);
    expect(check(show(shown, 429)).join()).to.match(/retry-after/);
    expect(check({ ...show(shown), body: '<html>' }).join()).to.match(/not JSON/);
    expect(check(show(shown, 200, { ...budget, 'content-type': 'text/html' })).join()).to.match(
      /not application\/json/,
    );
    const wrongNotFound = { method: 'GET', url: '/api/web/1.0/nothing', status: 200, headers: json, body: '{}' };
    expect(check(wrongNotFound)).to.have.length(2);
  });

  it('When a watched server answers a field the document does not name, Then the violation is recorded for the running test', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { ...json, ...budget });
      res.write(JSON.stringify({ data: { ...shown.data, debug: true } }).slice(0, 10));
      res.end(JSON.stringify({ data: { ...shown.data, debug: true } }).slice(10));
    });
    await watchAnswers(server, doc);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/api/web/1.0/leads/LD7K2M9QX4TB/show`);
      expect(res.status).to.equal(200);
      await res.text();
      await new Promise((r) => setTimeout(r, 20));
      // taken here, so the root afterEach hook (test/hooks.ts), which would fail this test with it, sees none
      const seen = takeViolations();
      expect(seen).to.have.length(1);
      expect(seen[0], seen[0]).to.match(
        /GET \/api\/web\/1.0\/leads\/LD7K2M9QX4TB\/show → 200.*additional properties.*debug/,
      );
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
