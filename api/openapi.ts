import type Joi from 'joi';
import joiToJson from 'joi-to-json';
import {
  COMMON_REFUSALS,
  DEFAULT_LIMITS,
  NOT_FOUND,
  budgetHeaders,
  headerComponents,
  messageAnswer,
  responseComponents,
  schemaComponents,
  type DocLimits,
} from './openapi-common.js';
import { BLOCKLIST_EXAMPLES } from './openapi-blocklist.js';
import { STOCK_EXAMPLES } from './openapi-stock.js';
import { CASH_EXAMPLES } from './openapi-cash.js';
import { SOURCE_EXAMPLES } from './openapi-sources.js';
import { CORE_EXAMPLES, type Example } from './openapi-examples.js';
import { MORE_EXAMPLES } from './openapi-examples-more.js';
import { introduction } from './openapi-intro.js';
import { OPERATIONS, type Operation } from './openapi-operations.js';
import { publicPaths } from './openapi-public.js';
import { storeIntakePaths } from './openapi-stores.js';
import { formPaths } from './openapi-forms.js';

export type { Operation } from './openapi-operations.js';
export { DEFAULT_LIMITS, type DocLimits } from './openapi-common.js';

/** A Joi schema (the one a service validates with) as OpenAPI 3.1 JSON Schema. */
export const toJson = (s: Joi.Schema) =>
  (joiToJson as unknown as (s: Joi.Schema, mode: string) => Record<string, unknown>)(s, 'open-api-3.1');

/** Every operation's example request and answer (api/openapi-examples*.ts), by `<method> <path>`. */
export const EXAMPLES: Record<string, Example> = {
  ...CORE_EXAMPLES,
  ...MORE_EXAMPLES,
  ...BLOCKLIST_EXAMPLES,
  ...STOCK_EXAMPLES,
  ...CASH_EXAMPLES,
  ...SOURCE_EXAMPLES,
};
export const exampleOf = (op: { method: string; path: string }): Example | undefined =>
  EXAMPLES[`${op.method} ${op.path}`];

const TAGS = [
  { name: 'Leads', description: 'Create, list, show, change the status of and delete leads' },
  { name: 'Orders', description: 'Orders: made by confirming a lead or created directly; pushed to a carrier' },
  { name: 'Histories', description: 'Status changes of leads and orders, to poll' },
  { name: 'Work queue', description: 'The next lead to call, for a call-centre tool (docs/api.md)' },
  { name: 'Webhooks', description: 'Signed events LeadFlow POSTs to your endpoints, and their delivery log' },
  { name: 'Blocklist', description: 'Phones whose new leads are created canceled' },
  { name: 'Lead sources', description: 'Landing-page forms and shops that create leads, and their intake log' },
  { name: 'Carrier callback', description: 'Shipping companies report status changes (signed)' },
  { name: 'Store webhooks', description: 'Shopify and WooCommerce orders become leads (signed)' },
  { name: 'Reference', description: 'This document' },
];
const tagOf = (path: string) =>
  path.startsWith('/leads')
    ? 'Leads'
    : path.startsWith('/orders')
      ? 'Orders'
      : path.includes('histories')
        ? 'Histories'
        : path.startsWith('/queue')
          ? 'Work queue'
          : path.startsWith('/blocklist')
            ? 'Blocklist'
            : path.startsWith('/sources')
              ? 'Lead sources'
              : 'Webhooks';

/** `post /leads/{reference}/show` → `postLeadsReferenceShow`. */
export const operationId = (method: string, path: string) =>
  method +
  path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** The example request as a curl line, for the operation's description. */
function curlOf(op: Operation, ex: Example): string {
  let path = op.path;
  for (const [k, v] of Object.entries(ex.params ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const query = ex.query ? `?${new URLSearchParams(ex.query).toString()}` : '';
  const lines = [`curl -X ${op.method.toUpperCase()} '{base_url}/api/web/1.0${path}${query}'`];
  lines.push(`  -H 'Authorization: Bearer $TOKEN' -H 'Accept: application/json'`);
  if (ex.body !== undefined) lines.push(`  -H 'Content-Type: application/json' -d '${JSON.stringify(ex.body)}'`);
  return lines.join(' \\\n');
}

/** The header of the idempotent creates, and the mark of a replayed answer (docs/api.md "Idempotent requests"). */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Optional. 1 to 255 printable ASCII characters (a V4 UUID is a good key), bare or as a quoted string. The same ' +
    'key with the same body within 24 hours answers the first answer again and writes nothing; with another body it ' +
    'is refused (422 under `Idempotency-Key`). Scoped to the account and the endpoint. A first request that failed ' +
    '(4xx or 5xx) stores nothing: the key can be sent again.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: '5f0c9a52-8a7e-4c5e-9a53-2f4b2f1f6d0e',
};
// `content`, not `schema`: a header with a schema is read as always present by openapi-backend (the suite's contract
// check), though OpenAPI makes response headers optional; this one is absent from first answers
const REPLAYED = {
  'Idempotent-Replayed': {
    description: '`true` on an answer given again for a repeated Idempotency-Key (absent on a first answer)',
    required: false,
    content: { 'text/plain': { schema: { type: 'string', enum: ['true'] } } },
  },
};

function parametersOf(op: Operation, ex: Example | undefined) {
  const query = op.query ? (toJson(op.query) as { properties?: Record<string, unknown>; required?: string[] }) : null;
  const withExample = (v: string | undefined) => (v === undefined ? {} : { example: v });
  return [
    ...(op.idempotent ? [IDEMPOTENCY_KEY] : []),
    ...(op.params ?? []).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...withExample(ex?.params?.[name]),
    })),
    ...Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: !!query?.required?.includes(name),
      schema,
      ...withExample(ex?.query?.[name]),
    })),
  ];
}

function operationObject(op: Operation) {
  const ex = exampleOf(op);
  const scopes = op.scope.split(' and ');
  const parameters = parametersOf(op, ex);
  const description = [
    op.description ?? '',
    `**Scope:** ${op.scope}.`,
    ex ? `**Example request**\n\n\`\`\`sh\n${curlOf(op, ex)}\n\`\`\`` : '',
  ].filter(Boolean);
  const json = (schema: unknown, example: unknown) => ({
    'application/json': { schema, ...(example === undefined ? {} : { example }) },
  });
  const extra = Object.entries(op.errors ?? {}).map(([status, r]) => [
    status,
    typeof r === 'string' ? { ...NOT_FOUND, description: r } : messageAnswer(r.description, r.message),
  ]);
  return {
    operationId: operationId(op.method, op.path),
    tags: [tagOf(op.path)],
    summary: op.summary,
    description: description.join('\n\n'),
    security: [{ bearer: scopes }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: json(toJson(op.body), ex?.body) } } : {}),
    responses: {
      [op.success.status]: {
        description: op.success.description,
        headers: op.idempotent ? { ...budgetHeaders, ...REPLAYED } : budgetHeaders,
        content: json(op.success.schema, ex?.response),
      },
      ...Object.fromEntries(extra),
      ...COMMON_REFUSALS,
    },
  };
}

/**
 * OpenAPI 3.1 for /api/web/1.0, built from the registered operations, their Joi schemas, their answer schemas and
 * examples, with the rate limits configured (`limits`, src/config.ts).
 */
export function openApiDocument(limits: DocLimits = DEFAULT_LIMITS) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  Object.assign(paths, publicPaths(limits, toJson), storeIntakePaths(), formPaths());
  return {
    openapi: '3.1.0',
    info: { title: 'LeadFlow REST API', version: '1.0', description: introduction(limits, OPERATIONS) },
    servers: [{ url: '/api/web/1.0' }],
    tags: TAGS,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Personal access token `{id}|{secret}`; the operation names the scopes it needs',
        },
      },
      schemas: schemaComponents,
      headers: headerComponents(limits),
      responses: responseComponents(limits),
    },
    paths,
  };
}
