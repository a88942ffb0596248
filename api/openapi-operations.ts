import Joi from 'joi';
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
import { SEARCH_COUNT_LIMIT } from '../src/query.js';
import { isoDate } from '../src/validation.js';
import { QUEUE_OPERATIONS } from './openapi-queue.js';
import { webhookOperations } from './openapi-webhooks.js';

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
  /** Refusals of this operation beside those of every operation (401, 403, 422, 429), by status. */
  errors?: Record<number, string>;
}

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
          ['current_page', 'from', 'last_page', 'per_page', 'to'].map((k) => [k, { type: ['integer', 'null'] }]),
        ),
        total: {
          type: 'integer',
          description:
            'Exact when the list is filtered by nothing but the account and the status (kept as counters, not ' +
            `counted per request). With any other filter (search_by / keyWord, a history's reference or since), ` +
            `rows are counted up to ${SEARCH_COUNT_LIMIT.toLocaleString('en')} past the first row of the requested ` +
            'page; when more match, `total` is that bound (the offset of the page + ' +
            `${SEARCH_COUNT_LIMIT.toLocaleString('en')}), \`total_exact\` is false and \`last_page\` / ` +
            '`links.next` follow it.',
        },
        total_exact: { type: 'boolean', description: 'False when `total` is the bound described under `total`.' },
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

/** Every REST operation, in the order the document lists them. */
export const OPERATIONS: Operation[] = [
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
  ...QUEUE_OPERATIONS,
  ...webhookOperations(envelope),
];
