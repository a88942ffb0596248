import type Joi from 'joi';
import joiToJson from 'joi-to-json';
import { SCOPES } from '../src/actor.js';
import { OPERATIONS } from './openapi-operations.js';

export type { Operation } from './openapi-operations.js';

/** A Joi schema (the one a service validates with) as OpenAPI 3.1 JSON Schema. */
export const toJson = (s: Joi.Schema) =>
  (joiToJson as unknown as (s: Joi.Schema, mode: string) => Record<string, unknown>)(s, 'open-api-3.1');
const message = { type: 'object', properties: { message: { type: 'string' } } };

/** OpenAPI 3.1 for /api/web/1.0, built from the registered operations and their Joi schemas. */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const query = op.query ? (toJson(op.query) as { properties?: Record<string, unknown>; required?: string[] }) : null;
    const parameters = [
      ...(op.params ?? []).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
        name,
        in: 'query',
        required: !!query?.required?.includes(name),
        schema,
      })),
    ];
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      description: `Requires a token with ${op.scope.includes(' and ') ? 'the scopes' : 'the scope'} ${op.scope}.`,
      security: [{ bearer: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toJson(op.body) } } } }
        : {}),
      responses: {
        [op.success.status]: {
          description: op.success.description,
          ...(op.success.schema ? { content: { 'application/json': { schema: op.success.schema } } } : {}),
        },
        401: {
          description: 'Missing, invalid, expired or revoked token',
          content: { 'application/json': { schema: message } },
        },
        403: { description: `The token lacks ${op.scope}`, content: { 'application/json': { schema: message } } },
        422: { description: 'Validation error: {message, errors: {"dotted.path": [messages]}}' },
        429: { description: 'Too Many Attempts. (Retry-After header)' },
        ...Object.fromEntries(
          Object.entries(op.errors ?? {}).map(([status, description]) => [
            status,
            { description, content: { 'application/json': { schema: message } } },
          ]),
        ),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'LeadFlow REST API',
      version: '1.0',
      description:
        `Scopes: ${SCOPES.join(', ')}. Rate limit: requests per minute per token ` +
        '(X-RateLimit-Limit / X-RateLimit-Remaining).',
    },
    servers: [{ url: '/api/web/1.0' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Personal access token "{id}|{secret}"' },
      },
    },
    paths,
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A readable, self-contained page (no external assets) rendered from the same document. */
export function apiDocsHtml(): string {
  const doc = openApiDocument();
  const sections = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const o = op as {
        summary: string;
        description: string;
        parameters?: unknown[];
        requestBody?: { content: Record<string, { schema: unknown }> };
      };
      const bodySchema = o.requestBody?.content['application/json'].schema;
      return `<section><h2><span class="m ${method}">${method.toUpperCase()}</span> /api/web/1.0${escapeHtml(path)}</h2>
      <p>${escapeHtml(o.summary)}. ${escapeHtml(o.description)}</p>
      ${o.parameters ? `<h3>Parameters</h3><pre>${escapeHtml(JSON.stringify(o.parameters, null, 2))}</pre>` : ''}
      ${o.requestBody ? `<h3>Body</h3><pre>${escapeHtml(JSON.stringify(bodySchema, null, 2))}</pre>` : ''}</section>`;
    }),
  );
  const errors =
    'Errors: 401 <code>{"message":"Unauthenticated."}</code>, ' +
    '403 <code>{"message":"This action is unauthorized."}</code>, 404 <code>{"message":"Not found."}</code>,';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LeadFlow REST API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1c2430}
h1{font-size:1.6rem}section{border:1px solid #dde3ea;border-radius:8px;padding:0 1rem 1rem;margin:1rem 0}
h2{font-size:1.05rem;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:4.5rem;color:#fff;border-radius:4px;padding:0 .4rem;text-align:center}
.get{background:#2f7d4f}.post{background:#2457a6}.put{background:#a66a14}.delete{background:#a62424}
pre{background:#f5f7fa;padding:.75rem;overflow:auto;max-height:24rem;font-size:12px}</style></head><body>
<h1>LeadFlow REST API 1.0</h1>
<p>${escapeHtml(doc.info.description)} Machine-readable: <a href="/api/web/1.0/openapi.json">openapi.json</a>.
${errors}
422 <code>{"message", "errors": {"leads.0.phone": ["…"]}}</code>, 429 <code>{"message":"Too Many Attempts."}</code>.</p>
${sections.join('\n')}</body></html>`;
}
