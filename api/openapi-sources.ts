import { INTAKE_OUTCOMES, SOURCE_KINDS } from '../src/sources/lead-source.model.js';
import { HEALTH_STATES } from '../src/sources/source-health.js';
import {
  intakeListSchema,
  sourceCreateSchema,
  sourceListSchema,
  sourceUpdateSchema,
} from '../src/sources/source.schemas.js';
import { EXAMPLE_REFS, page, type Example } from './openapi-examples.js';
import type { Operation } from './openapi-operation.js';
import { closed, count, envelope, int, nullable, str, time, withMessage } from './openapi-schemas.js';

const SCOPE = 'MANAGE SOURCES';
const line = closed({ sku: str, quantity: int, price: { type: 'number' } }, ['price']);
const source = {
  ...closed({
    id: int,
    account_id: int,
    kind: { type: 'string', enum: [...SOURCE_KINDS] },
    name: str,
    public_key: { type: 'string', description: 'Names the source in its public address; not a secret' },
    intake_url: { type: 'string', description: 'The form\u2019s action, or the shop\u2019s webhook URL' },
    snippet: {
      type: ['string', 'null'],
      description: 'A form\u2019s copy-paste HTML (docs/lead-sources.md "The form snippet"); null for a shop',
    },
    allowed_origins: { type: 'array', items: str },
    thank_you_url: nullable('string'),
    default_products: { type: 'array', items: line },
    product_mapping: { type: 'object', additionalProperties: str },
    signing_secret_hint: nullable('string', { description: 'Whether a secret is set (never the secret)' }),
    active: { type: 'boolean' },
    health: closed({
      state: {
        type: 'string',
        enum: [...HEALTH_STATES],
        description:
          'failing: over half of at least 10 submissions in 24 hours refused; no_products: a form that cannot price ' +
          'a lead (no default product line and no mapping giving an active product), so its submissions are refused',
      },
      received_24h: count,
      refused_24h: count,
    }),
    created_by: nullable('string'),
    created_at: time,
    updated_at: time,
  }),
  description: 'A landing-page form or a shop of the account',
};
const entry = {
  ...closed({
    id: int,
    source_id: int,
    received_at: time,
    outcome: { type: 'string', enum: [...INTAKE_OUTCOMES] },
    reason: nullable('string'),
    lead_reference: nullable('string'),
    external_id: nullable('string'),
    origin: nullable('string'),
    client_ip: nullable('string'),
    attempts: {
      type: 'integer',
      minimum: 1,
      description: 'Submissions the entry stands for: 1, or those counted in its minute (rate limited, bad signature)',
    },
    payload: { description: 'The submission as received (cut)' },
  }),
  description: 'One submission a source received and what became of it',
};
const notFound = { 404: 'Unknown id (another account\u2019s is unknown too)' };
const one = (summary: string, method: Operation['method'], extra: Partial<Operation> = {}): Operation => ({
  method,
  path: '/sources/{id}',
  summary,
  scope: SCOPE,
  params: ['id'],
  success: { status: 200, description: summary, schema: closed({ data: source }) },
  errors: notFound,
  ...extra,
});

/** Lead sources and their intake log (docs/api.md "Lead sources", docs/lead-sources.md). */
export const SOURCE_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/sources',
    summary: 'Lead sources of the account, newest first, with their health',
    scope: SCOPE,
    query: sourceListSchema,
    success: { status: 200, description: 'A page of sources', schema: envelope(source) },
  },
  {
    method: 'post',
    path: '/sources',
    summary: 'Add a landing-page form or a shop',
    description:
      'The public key is generated. A shop needs its webhook signing secret, kept and never shown back. Default ' +
      'products and mapped skus must be active products of the account.',
    scope: SCOPE,
    body: sourceCreateSchema,
    success: { status: 201, description: 'Created', schema: withMessage({ data: source }) },
  },
  one('One source', 'get'),
  one('Change a source (only what is named; signing_secret replaces the secret)', 'put', {
    body: sourceUpdateSchema,
    success: { status: 200, description: 'Updated', schema: withMessage({ data: source }) },
  }),
  one('Delete a source (its leads stay, without a source; its intake log goes)', 'delete', {
    success: { status: 200, description: 'Deleted', schema: withMessage({ deleted: count }) },
  }),
  {
    method: 'get',
    path: '/sources/{id}/intake',
    summary: 'The source\u2019s intake log of the last 30 days, newest first',
    scope: SCOPE,
    params: ['id'],
    query: intakeListSchema,
    success: { status: 200, description: 'A page of submissions', schema: envelope(entry) },
    errors: notFound,
  },
];

const example = {
  id: 7,
  account_id: 3,
  kind: 'form',
  name: 'Summer landing page',
  public_key: 'q2Jx7mTgK0bq5ZtV1aN3cYfE',
  intake_url: 'https://leadflow.example/api/web/1.0/intake/forms/q2Jx7mTgK0bq5ZtV1aN3cYfE',
  snippet:
    '<form class="leadflow-form" method="post" ' +
    'action="https://leadflow.example/api/web/1.0/intake/forms/q2Jx7mTgK0bq5ZtV1aN3cYfE">…</form>',
  allowed_origins: ['https://shop.example'],
  thank_you_url: 'https://shop.example/thanks',
  default_products: [{ sku: 'SKU-1', quantity: 1 }],
  product_mapping: {},
  signing_secret_hint: null,
  active: true,
  health: { state: 'ok', received_24h: 42, refused_24h: 3 },
  created_by: 'CRM (Sara Seller)',
  created_at: EXAMPLE_REFS.AT,
  updated_at: EXAMPLE_REFS.AT,
};
const intake = {
  id: 901,
  source_id: 7,
  received_at: EXAMPLE_REFS.AT,
  outcome: 'created',
  reason: null,
  lead_reference: EXAMPLE_REFS.LEAD,
  external_id: null,
  origin: 'https://shop.example',
  client_ip: '203.0.113.7',
  attempts: 1,
  payload: { phone: '0612345678', full_name: 'Amina B.' },
};
const body = {
  kind: 'form',
  name: example.name,
  allowed_origins: example.allowed_origins,
  thank_you_url: example.thank_you_url,
  default_products: example.default_products,
};

export const SOURCE_EXAMPLES: Record<string, Example> = {
  'get /sources': { response: page('/sources', [example]) },
  'post /sources': { body, response: { message: 'Lead source created.', data: example } },
  'get /sources/{id}': { params: { id: '7' }, response: { data: example } },
  'put /sources/{id}': {
    params: { id: '7' },
    body: { active: false },
    response: { message: 'Lead source updated.', data: { ...example, active: false } },
  },
  'delete /sources/{id}': { params: { id: '7' }, response: { message: 'Lead source deleted.', deleted: 1 } },
  'get /sources/{id}/intake': { params: { id: '7' }, response: page('/sources/7/intake', [intake]) },
};
