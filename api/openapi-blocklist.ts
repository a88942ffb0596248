import { blocklistQuerySchema, blockSchema, REASON_MAX } from '../src/blocklist/blocklist.schemas.js';
import { EXAMPLE_REFS, page, type Example } from './openapi-examples.js';
import type { Operation } from './openapi-operation.js';
import { closed, envelope, int, time, withMessage } from './openapi-schemas.js';

const SCOPE = 'MANAGE BLOCKLIST';
const entry = {
  ...closed({
    id: int,
    account_id: int,
    phone: { type: 'string', description: 'As typed when blocked' },
    phone_normalized: { type: 'string', description: 'E.164, read in the account\u2019s country: what leads match' },
    reason: { type: 'string', maxLength: REASON_MAX },
    created_by: { type: 'string', description: 'Who blocked it (a token: its name and owner)' },
    created_at: time,
  }),
  description: 'A blocked phone of the account',
};
const notFound = { 404: 'Unknown id (another account\u2019s is unknown too)' };

/**
 * The blocklist (docs/api.md "Blocklist"): a new lead from a blocked phone is created `canceled`, by `system`, with the
 * block's reason in its history.
 */
export const BLOCKLIST_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/blocklist',
    summary: 'Blocked phones of the account, newest first (phone: digits the E.164 form contains)',
    scope: SCOPE,
    query: blocklistQuerySchema,
    success: { status: 200, description: 'A page of blocked phones', schema: envelope(entry) },
  },
  {
    method: 'post',
    path: '/blocklist',
    summary: 'Block a phone: its new leads are created canceled',
    description:
      'The phone is read in the account\u2019s country. A phone with no E.164 form (it could never match a lead), or ' +
      'one already blocked (typed any way), is a 422.',
    scope: SCOPE,
    body: blockSchema,
    success: { status: 201, description: 'Blocked', schema: withMessage({ data: entry }) },
  },
  {
    method: 'get',
    path: '/blocklist/{id}',
    summary: 'One blocked phone',
    scope: SCOPE,
    params: ['id'],
    success: { status: 200, description: 'The entry', schema: closed({ data: entry }) },
    errors: notFound,
  },
  {
    method: 'delete',
    path: '/blocklist/{id}',
    summary: 'Unblock a phone (leads it canceled stay canceled)',
    scope: SCOPE,
    params: ['id'],
    success: {
      status: 200,
      description: 'Unblocked',
      schema: withMessage({ deleted: { type: 'integer', minimum: 0 } }),
    },
    errors: notFound,
  },
];

const example = {
  id: 5,
  account_id: 3,
  phone: '0612345678',
  phone_normalized: '+212612345678',
  reason: 'Fake orders, never picks up',
  created_by: 'CRM (Sara Seller)',
  created_at: EXAMPLE_REFS.AT,
};

export const BLOCKLIST_EXAMPLES: Record<string, Example> = {
  'get /blocklist': { response: page('/blocklist', [example]) },
  'post /blocklist': {
    body: { phone: example.phone, reason: example.reason },
    response: { message: 'Phone blocked.', data: example },
  },
  'get /blocklist/{id}': { params: { id: '5' }, response: { data: example } },
  'delete /blocklist/{id}': { params: { id: '5' }, response: { message: 'Phone unblocked.', deleted: 1 } },
};
