import Joi from 'joi';
import joiToJson from 'joi-to-json';
import { SCOPES } from '../src/actor.js';
import {
  createBodySchema,
  deleteBodySchema,
  leadItemSchema,
  restListQuerySchema,
  updateBodySchema,
} from '../src/leads/lead.schemas.js';
import { LEAD_STATUSES } from '../src/leads/lead.model.js';
import { orderListQuerySchema, orderUpdateBodySchema, pushBodySchema } from '../src/orders/order.schemas.js';
import { pageKeys } from '../src/pagination.js';
import { isoDate } from '../src/validation.js';

/**
 * One REST operation as the OpenAPI document shows it; request schemas are the Joi schemas the services validate with.
 */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  scope: string;
  body?: Joi.Schema;
  query?: Joi.ObjectSchema;
  params?: string[];
  success: { status: number; description: string; schema?: Record<string, unknown> };
}

const operations: Operation[] = [];

/** Routers register their operations here, so the document lists exactly what is served. */
export function registerOperations(...ops: Operation[]): void {
  for (const op of ops) if (!operations.some((o) => o.method === op.method && o.path === op.path)) operations.push(op);
}

const toJson = (s: Joi.Schema) =>
  (joiToJson as unknown as (s: Joi.Schema, mode: string) => Record<string, unknown>)(s, 'open-api-3.1');
const message = { type: 'object', properties: { message: { type: 'string' } } };
const envelope = (item: Record<string, unknown>) => ({
  type: 'object',
  properties: {
    data: { type: 'array', items: item },
    links: {
      type: 'object',
      properties: {
        first: { type: 'string' },
        last: { type: 'string' },
        prev: { type: ['string', 'null'] },
        next: { type: ['string', 'null'] },
      },
    },
    meta: {
      type: 'object',
      properties: {
        ...Object.fromEntries(
          ['current_page', 'from', 'last_page', 'per_page', 'to', 'total'].map((k) => [
            k,
            { type: ['integer', 'null'] },
          ]),
        ),
        path: { type: 'string' },
      },
    },
  },
});
const leadListItem = {
  type: 'object',
  properties: {
    reference: { type: 'string', example: 'LD7K2M9QX4TB' },
    full_name: { type: 'string' },
    phone: { type: 'string' },
    city: { type: ['string', 'null'] },
    status: { type: 'string', enum: [...LEAD_STATUSES] },
    created_at: { type: 'string', format: 'date-time' },
  },
};
const historyItem = (ref: string) => ({
  type: 'object',
  properties: {
    [ref]: { type: 'string' },
    old_status: { type: ['string', 'null'] },
    new_status: { type: 'string' },
    changed_by: { type: 'string' },
    changed_at: { type: 'string', format: 'date-time' },
  },
});
const orderBody = createBodySchema('orders').keys({
  orders: Joi.array().min(1).max(1000).items(leadItemSchema).required(),
});

const historyQuery = (ref: string) => Joi.object({ ...pageKeys, [ref]: Joi.string().max(12), since: isoDate() });

registerOperations(
  {
    method: 'post',
    path: '/leads',
    summary: 'Bulk create leads (atomic, at most 1,000)',
    scope: 'CREATE LEADS',
    body: createBodySchema('leads').keys({ leads: Joi.array().min(1).max(1000).items(leadItemSchema).required() }),
    success: {
      status: 201,
      description: 'Created',
      schema: {
        type: 'object',
        properties: { message: { type: 'string' }, references: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
  {
    method: 'get',
    path: '/leads',
    summary: 'List leads, newest first',
    scope: 'VIEW LEADS',
    query: restListQuerySchema,
    success: { status: 200, description: 'A page of leads', schema: envelope(leadListItem) },
  },
  {
    method: 'get',
    path: '/leads/{reference}/show',
    summary: 'Show one lead with products, data and history',
    scope: 'VIEW LEADS',
    params: ['reference'],
    success: { status: 200, description: 'The lead' },
  },
  {
    method: 'put',
    path: '/leads',
    summary: 'Bulk update lead statuses (atomic)',
    scope: 'UPDATE LEADS',
    body: updateBodySchema,
    success: {
      status: 200,
      description: 'Updated',
      schema: { type: 'object', properties: { message: { type: 'string' }, updated: { type: 'integer' } } },
    },
  },
  {
    method: 'delete',
    path: '/leads',
    summary: 'Bulk delete leads (confirmed leads are protected)',
    scope: 'DELETE LEADS',
    body: deleteBodySchema,
    success: {
      status: 200,
      description: 'Deleted',
      schema: { type: 'object', properties: { message: { type: 'string' }, deleted: { type: 'integer' } } },
    },
  },
  {
    method: 'post',
    path: '/orders',
    summary: 'Bulk create orders (atomic, at most 1,000; same item rules as leads)',
    scope: 'CREATE ORDERS',
    body: orderBody,
    success: { status: 201, description: 'Created' },
  },
  {
    method: 'get',
    path: '/orders',
    summary: 'List orders, newest first (search_by adds tracking_number; status filter)',
    scope: 'VIEW ORDERS',
    query: orderListQuerySchema,
    success: { status: 200, description: 'A page of orders' },
  },
  {
    method: 'get',
    path: '/orders/{reference}/show',
    summary: 'Show one order with products, shipping state and history',
    scope: 'VIEW ORDERS',
    params: ['reference'],
    success: { status: 200, description: 'The order' },
  },
  {
    method: 'put',
    path: '/orders',
    summary: 'Bulk update order statuses under the transition rules (atomic)',
    scope: 'UPDATE ORDERS',
    body: orderUpdateBodySchema('reference'),
    success: { status: 200, description: 'Updated' },
  },
  {
    method: 'delete',
    path: '/orders',
    summary: 'Bulk delete new or canceled orders',
    scope: 'DELETE ORDERS',
    body: deleteBodySchema,
    success: { status: 200, description: 'Deleted' },
  },
  {
    method: 'post',
    path: '/orders/push',
    summary: 'Queue new orders for a shipping company (URGENT job)',
    scope: 'UPDATE ORDERS',
    body: pushBodySchema('references'),
    success: { status: 202, description: 'Queued' },
  },
  {
    method: 'get',
    path: '/lead-histories',
    summary: 'Lead status changes, newest first',
    scope: 'VIEW LEADS',
    query: historyQuery('lead_reference'),
    success: { status: 200, description: 'A page of history entries', schema: envelope(historyItem('lead_reference')) },
  },
  {
    method: 'get',
    path: '/order-histories',
    summary: 'Order status changes, newest first',
    scope: 'VIEW ORDERS',
    query: historyQuery('order_reference'),
    success: {
      status: 200,
      description: 'A page of history entries',
      schema: envelope(historyItem('order_reference')),
    },
  },
);

/** OpenAPI 3.1 for /api/web/1.0, built from the registered operations and their Joi schemas. */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
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
      description: `Requires a token with the scope ${op.scope}.`,
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
