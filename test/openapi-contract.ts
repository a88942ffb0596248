import type http from 'node:http';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';

/**
 * The contract, enforced on every REST answer the suite receives: each answer of a test server under /api/web/1.0
 * is checked against the OpenAPI document that server serves, by openapi-backend (operation matching, answer bodies
 * and headers) on Ajv's JSON Schema 2020-12 (the dialect of OpenAPI 3.1) with ajv-formats. An undocumented status,
 * a missing documented header, a body the operation's schema refuses (the answers' schemas are closed: an extra
 * field fails) is recorded; the root hooks of test/hooks.ts fail the test during which it was answered.
 */

export interface Answer {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const ROOT = '/api/web/1.0';

type Validator = (answer: Answer) => string[];
const validators = new Map<string, Promise<Validator>>();

/** A checker for `document` (cached by its text: servers with other limits serve another document). */
export function contractOf(document: Document): Promise<Validator> {
  const key = JSON.stringify(document);
  let v = validators.get(key);
  if (!v) validators.set(key, (v = build(JSON.parse(key)))); // as served: no object shared between two places
  return v;
}

const ajv2020 = (opts: object) => {
  const ajv = new Ajv2020.default({ ...opts, strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv;
};

async function build(document: Document): Promise<Validator> {
  const api = new OpenAPIBackend({
    definition: document,
    apiRoot: ROOT,
    quick: true, // the document's own validity is checked by a 3.1 validator in test/unit/openapi-document.test.ts
    customizeAjv: (_ajv: unknown, opts: object) => ajv2020(opts) as never,
  });
  await api.init();
  const schemas = (document.components as { schemas: Record<string, object> }).schemas;
  const refusal = ajv2020({}).compile(schemas.Message);
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  return (answer) => check(api, refusal, paths, answer);
}

const describe = (errors: { instancePath: string; message?: string; params?: unknown }[] | null | undefined) =>
  (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ');

function check(
  api: OpenAPIBackend,
  refusal: ReturnType<ReturnType<typeof ajv2020>['compile']>,
  paths: Record<string, Record<string, unknown>>,
  a: Answer,
): string[] {
  const url = new URL(a.url, 'http://localhost');
  const where = `${a.method} ${url.pathname} → ${a.status}`;
  const documented = documentedOtherThanJson(api, a, url);
  if (documented) return documented(where);
  const parsed = parseJson(a.body);
  if (parsed === undefined) return [`${where}: the body is not JSON: ${a.body.slice(0, 200)}`];
  if (!String(a.headers['content-type'] ?? '').startsWith('application/json'))
    return [`${where}: content-type ${a.headers['content-type']}, not application/json`];
  // OpenAPI matches a concrete path before a templated one: DELETE /webhooks/deliveries is not DELETE /webhooks/{id}
  const concrete = paths[url.pathname.slice(ROOT.length)];
  const op = api.matchOperation({ method: a.method, path: url.pathname, headers: {}, query: url.search.slice(1) });
  if (!op || (concrete && !concrete[a.method.toLowerCase()])) return unmatched(api, refusal, a, parsed, where);
  return checkOperation(api, op, a, parsed, where);
}

/**
 * An answer that is not JSON, checked against what its operation documents for its status: a page (the public form
 * endpoint answers a browser's form post with HTML), or no body at all (a redirect, a preflight). Null when the answer
 * is JSON, or its operation documents nothing for its status: the JSON checks then say what is wrong.
 */
function documentedOtherThanJson(api: OpenAPIBackend, a: Answer, url: URL): ((where: string) => string[]) | null {
  const type = String(a.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();
  if (type === 'application/json') return null;
  const op = api.matchOperation({ method: a.method, path: url.pathname, headers: {}, query: url.search.slice(1) });
  const response = (op?.responses as Record<string, { content?: Record<string, unknown> }> | undefined)?.[
    String(a.status)
  ];
  if (!response) return null;
  return (where) => {
    if (response.content)
      return type in response.content ? [] : [`${where}: content-type ${type}, not application/json nor documented`];
    return a.body === '' ? [] : [`${where}: a body where none is documented: ${a.body.slice(0, 100)}`];
  };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** No operation: an unknown path is a 404, a known path with another method a 405; both a bare `{message}`. */
function unmatched(
  api: OpenAPIBackend,
  refusal: ReturnType<ReturnType<typeof ajv2020>['compile']>,
  a: Answer,
  body: unknown,
  where: string,
): string[] {
  const path = new URL(a.url, 'http://localhost').pathname;
  const known = METHODS.some((method) => api.matchOperation({ method, path, headers: {} }));
  const expected = known ? 405 : 404;
  const problems = a.status === expected ? [] : [`${where}: no documented operation, so ${expected} was expected`];
  if (!refusal(body)) problems.push(`${where}: not the documented {message} refusal: ${describe(refusal.errors)}`);
  return problems;
}

function checkOperation(api: OpenAPIBackend, op: Operation, a: Answer, body: unknown, where: string): string[] {
  const at = `${where} (${op.operationId})`;
  const responses = (op.responses ?? {}) as Record<string, unknown>;
  if (!(String(a.status) in responses) && !('default' in responses))
    return [`${at}: status ${a.status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
  const problems: string[] = [];
  const bodyCheck = api.validateResponse(body, op, a.status);
  if (!bodyCheck.valid)
    problems.push(`${at}: body ${describe(bodyCheck.errors)}: ${JSON.stringify(body).slice(0, 300)}`);
  const headers = Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const headerCheck = api.validateResponseHeaders(headers, op, {
    statusCode: a.status,
    setMatchType: 'superset' as never,
  });
  if (!headerCheck.valid) problems.push(`${at}: headers ${describe(headerCheck.errors)}`);
  return problems;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the watched servers answered against their documents since the last `takeViolations()`. */
const violations: string[] = [];
export function takeViolations(): string[] {
  return violations.splice(0, violations.length);
}

/**
 * Records every answer `server` gives under /api/web/1.0 (status, headers, body as sent) and checks it against
 * `document` once it is sent. Installed first among the server's request listeners, so no byte escapes it.
 */
export async function watchAnswers(server: http.Server, document: Document): Promise<void> {
  const validate = await contractOf(document);
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? '';
    if (!url.startsWith(`${ROOT}/`) || req.method === 'HEAD') return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding as BufferEncoding));
    };
    const { write, end, writeHead } = res;
    const given: Answer['headers'] = {}; // headers passed to writeHead itself are not among getHeaders()
    res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
      const headers = args.find((a) => a && typeof a === 'object') as Record<string, string> | undefined;
      for (const [k, v] of Object.entries(headers ?? {})) given[k.toLowerCase()] = v;
      return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    res.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk, typeof rest[0] === 'string' ? rest[0] : undefined);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: http.ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      keep(chunk, typeof rest[0] === 'string' ? rest[0] : undefined);
      return (end as (...args: unknown[]) => http.ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    res.once('finish', () => {
      const answer = {
        method: req.method ?? 'GET',
        url,
        status: res.statusCode,
        headers: { ...(res.getHeaders() as Answer['headers']), ...given },
        body: Buffer.concat(chunks).toString('utf8'),
      };
      try {
        violations.push(...validate(answer));
      } catch (err) {
        violations.push(`${answer.method} ${url} → ${answer.status}: the validator failed: ${(err as Error).message}`);
      }
    });
  });
}
