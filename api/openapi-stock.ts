import {
  MOVEMENT_KINDS,
  MOVEMENTS_MAX,
  movementsBodySchema,
  movementsQuerySchema,
  productsQuerySchema,
  stockQuerySchema,
  thresholdBodySchema,
  warehouseBodySchema,
  warehousesQuerySchema,
} from '../src/stock/stock.schemas.js';
import { EXAMPLE_REFS, page, type Example } from './openapi-examples.js';
import type { Operation } from './openapi-operation.js';
import { closed, count, envelope, int, nullable, str, time, withMessage } from './openapi-schemas.js';

const SCOPE = 'MANAGE STOCK';
const units = { type: 'integer', description: 'Units (negative only when more is reserved or shipped than received)' };
const level = {
  ...closed({
    account_id: int,
    sku: str,
    name: str,
    warehouse: { type: 'string', description: 'The warehouse code' },
    on_hand: units,
    reserved: { ...count, description: 'Units held by open orders (new or pushed)' },
    available: { ...units, description: 'on_hand − reserved' },
    low_stock_threshold: count,
    low: { type: 'boolean', description: 'available ≤ low_stock_threshold' },
  }),
  description: 'An active product in one warehouse of the account',
};
const movement = {
  ...closed({
    id: int,
    account_id: int,
    sku: str,
    warehouse: str,
    kind: { type: 'string', enum: [...MOVEMENT_KINDS] },
    quantity: { type: 'integer', description: 'Signed units: on_hand for goods, reserved for reservations' },
    order_reference: nullable('string'),
    reason: nullable('string'),
    changed_by: str,
    created_at: time,
  }),
  description: 'A ledger entry (never edited)',
};
const warehouse = closed({
  id: int,
  account_id: int,
  code: str,
  name: str,
  is_default: { type: 'boolean' },
  created_at: time,
});
const product = {
  ...closed({
    account_id: int,
    sku: str,
    name: str,
    price: { type: 'number' },
    low_stock_threshold: count,
    on_hand: units,
    reserved: count,
    available: units,
    low: { type: 'boolean' },
  }),
  description: 'An active product with its stock over every warehouse',
};

/** Stock (docs/stock.md): levels, the ledger, warehouses and the products' thresholds. */
export const STOCK_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/stock',
    summary: 'Stock levels: every active product in every warehouse of the account, by sku then warehouse',
    scope: SCOPE,
    query: stockQuerySchema,
    success: { status: 200, description: 'A page of levels', schema: envelope(level) },
  },
  {
    method: 'get',
    path: '/stock/movements',
    summary: 'The stock ledger, newest first',
    scope: SCOPE,
    query: movementsQuerySchema,
    success: { status: 200, description: 'A page of movements', schema: envelope(movement) },
  },
  {
    method: 'post',
    path: '/stock/movements',
    summary: `Record receipts and adjustments (1 to ${MOVEMENTS_MAX}, all or none)`,
    description:
      'A receipt adds units; an adjustment adds or removes them but never takes on_hand below 0. A warehouse not ' +
      'named is the account\u2019s default (MAIN). An unknown sku or warehouse, or an adjustment below 0, is a 422 ' +
      'under `movements.<i>` and nothing is recorded.',
    scope: SCOPE,
    body: movementsBodySchema,
    success: { status: 201, description: 'Recorded', schema: withMessage({ movements: count }) },
  },
  {
    method: 'get',
    path: '/warehouses',
    summary: 'The account\u2019s warehouses, the default first',
    scope: SCOPE,
    query: warehousesQuerySchema,
    success: {
      status: 200,
      description: 'The warehouses',
      schema: closed({ data: { type: 'array', items: warehouse } }),
    },
  },
  {
    method: 'post',
    path: '/warehouses',
    summary: 'Add a warehouse (its code is unique in the account)',
    scope: SCOPE,
    body: warehouseBodySchema,
    success: { status: 201, description: 'Created', schema: withMessage({ data: warehouse }) },
  },
  {
    method: 'get',
    path: '/products',
    summary: 'The account\u2019s active products with their stock and low-stock threshold',
    scope: SCOPE,
    query: productsQuerySchema,
    success: { status: 200, description: 'A page of products', schema: envelope(product) },
  },
  {
    method: 'put',
    path: '/products/{sku}',
    summary: 'Set a product\u2019s low-stock threshold',
    scope: SCOPE,
    params: ['sku'],
    body: thresholdBodySchema,
    success: { status: 200, description: 'Updated', schema: withMessage({ data: product }) },
    errors: { 404: 'Unknown sku (another account\u2019s is unknown too)' },
  },
];

const lvl = {
  account_id: 3,
  sku: 'SKU-1',
  name: 'Argan oil 100 ml',
  warehouse: 'MAIN',
  on_hand: 40,
  reserved: 3,
  available: 37,
  low_stock_threshold: 5,
  low: false,
};
const mv = {
  id: 12,
  account_id: 3,
  sku: 'SKU-1',
  warehouse: 'MAIN',
  kind: 'reservation',
  quantity: 1,
  order_reference: EXAMPLE_REFS.ORDER,
  reason: null,
  changed_by: 'Sara Seller',
  created_at: EXAMPLE_REFS.AT,
};
const wh = {
  id: 4,
  account_id: 3,
  code: 'MAIN',
  name: 'Main warehouse',
  is_default: true,
  created_at: EXAMPLE_REFS.AT,
};
const pr = {
  account_id: 3,
  sku: 'SKU-1',
  name: 'Argan oil 100 ml',
  price: 120,
  low_stock_threshold: 5,
  on_hand: 40,
  reserved: 3,
  available: 37,
  low: false,
};

export const STOCK_EXAMPLES: Record<string, Example> = {
  'get /stock': { response: page('/stock', [lvl]) },
  'get /stock/movements': { response: page('/stock/movements', [mv]) },
  'post /stock/movements': {
    body: { movements: [{ sku: 'SKU-1', kind: 'receipt', quantity: 40, reason: 'Supplier delivery 118' }] },
    response: { message: '1 stock movement(s) recorded.', movements: 1 },
  },
  'get /warehouses': { response: { data: [wh] } },
  'post /warehouses': {
    body: { code: 'CASA2', name: 'Casablanca depot' },
    response: {
      message: 'Warehouse created.',
      data: { ...wh, id: 5, code: 'CASA2', name: 'Casablanca depot', is_default: false },
    },
  },
  'get /products': { response: page('/products', [pr]) },
  'put /products/{sku}': {
    params: { sku: 'SKU-1' },
    body: { low_stock_threshold: 5 },
    response: { message: 'Product updated.', data: pr },
  },
};
