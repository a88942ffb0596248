import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { EXAMPLES, openApiDocument } from '../../api/openapi.js';
import { OPERATIONS } from '../../api/openapi-operations.js';
import { carrierCallbackSchema } from '../../src/orders/order.schemas.js';
import { validate } from '../../src/validation.js';

type Doc = ReturnType<typeof openApiDocument>;
type OperationObject = {
  operationId: string;
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: object; example?: unknown }>; $ref?: string }>;
  security: Record<string, string[]>[];
};
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op: op as OperationObject })),
  );

describe('OpenAPI document (api/openapi.ts)', () => {
  const doc = openApiDocument({ perToken: 60, perAccount: 180, callback: 120 });

  it('is valid OpenAPI 3.1 for a maintained validator (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('states the configured rate limits, their headers and every error shape', () => {
    const other = openApiDocument({ perToken: 7, perAccount: 21, callback: 5 });
    expect(other.info.description).to.include('**7 requests per minute per token**');
    expect(other.info.description).to.include('**21 requests per minute per account**');
    expect(other.info.description).to.include('**5 per minute per client IP**');
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After'])
      expect(doc.info.description).to.include(header);
    for (const status of [400, 401, 403, 404, 405, 409, 413, 422, 429, 500, 503])
      expect(doc.info.description).to.match(new RegExp(`\\| ${status} \\|`));
    const refusals = doc.components.responses;
    expect(Object.keys(refusals)).to.include.members(['Unauthenticated', 'Forbidden', 'NotFound', 'ValidationFailed']);
    expect(refusals.TooManyRequests.headers).to.have.keys(
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    );
  });

  it('names the scope of every bearer operation (the orders ones included) and documents the signed carrier callback', () => {
    for (const o of OPERATIONS) {
      const op = (doc.paths as Record<string, Record<string, OperationObject>>)[o.path][o.method];
      expect(op.security, `${o.method} ${o.path}`).to.deep.equal([{ bearer: o.scope.split(' and ') }]);
    }
    const push = (doc.paths as Record<string, Record<string, OperationObject>>)['/orders/push'].post;
    expect(push.security).to.deep.equal([{ bearer: ['UPDATE ORDERS'] }]);
    const callback = (doc.paths as Record<string, Record<string, OperationObject>>)['/shipping/{code}/callback'].post;
    expect(callback.security).to.deep.equal([]);
    expect(callback.parameters!.map((p) => `${p.in}:${p.name}`)).to.deep.equal([
      'path:code',
      'query:company',
      'header:X-Timestamp',
      'header:X-Signature',
    ]);
    expect(JSON.stringify(callback)).to.include('HMAC-SHA256');
    expect(() =>
      validate(carrierCallbackSchema, callback.requestBody!.content['application/json'].example),
    ).to.not.throw();
  });

  it('documents the signed store webhooks: no token, the platform signature header, their 200 / 401 / 404 / 413', () => {
    const paths = doc.paths as Record<string, Record<string, OperationObject>>;
    for (const [path, header] of [
      ['/intake/shopify/{public_key}', 'X-Shopify-Hmac-Sha256'],
      ['/intake/woocommerce/{public_key}', 'X-WC-Webhook-Signature'],
    ]) {
      const op = paths[path].post;
      expect(op.security, path).to.deep.equal([]);
      expect(op.parameters!.map((p) => `${p.in}:${p.name}`)).to.include.members([
        'path:public_key',
        `header:${header}`,
      ]);
      expect(JSON.stringify(op)).to.include('HMAC-SHA256');
      expect(Object.keys(op.responses)).to.include.members(['200', '401', '404', '413']);
    }
  });

  it('has, for every operation, an example request the service accepts and an example answer its schema accepts', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    for (const o of OPERATIONS) {
      const ex = EXAMPLES[`${o.method} ${o.path}`];
      const name = `${o.method} ${o.path}`;
      expect(ex, name).to.not.equal(undefined);
      if (o.body) expect(() => validate(o.body!, ex.body), `${name} example body`).to.not.throw();
      if (o.query && ex.query) expect(() => validate(o.query!, ex.query), `${name} example query`).to.not.throw();
      for (const p of o.params ?? []) expect(ex.params?.[p], `${name} example ${p}`).to.be.a('string');
      const check = ajv.compile(o.success.schema);
      expect(check(ex.response), `${name}: ${ajv.errorsText(check.errors)}`).to.equal(true);
    }
    for (const { method, path, op } of operationsOf(doc)) {
      const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'))!;
      // a preflight's 204 has no body and the thank-you page is HTML: only JSON answers have a JSON example
      const jsonAnswer = success[1].content && !success[1].content['text/html'];
      if (path !== '/openapi.json' && jsonAnswer)
        expect(success[1].content!['application/json'].example, `${method} ${path}`).to.not.equal(undefined);
      expect(op.operationId).to.be.a('string');
    }
  });

  it('closes every answer of ours: an object schema lists its fields and allows no other', () => {
    const open: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.type === 'object' && n.properties && n.additionalProperties !== false) open.push(at);
      for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
    };
    for (const { method, path, op } of operationsOf(doc))
      for (const [status, r] of Object.entries(op.responses)) walk(r.content, `${method} ${path} ${status}`);
    walk(doc.components.schemas, 'components');
    expect(open).to.deep.equal([]);
  });
});
