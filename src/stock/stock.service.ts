import { actorUserId, type Actor } from '../actor.js';
import { newRowAccount } from '../chosen-account.js';
import type { Core } from '../context.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { Page } from '../pagination.js';
import { authorize, namedAccountScope } from '../policy.js';
import type { UploadedFile } from '../uploads.js';
import { isFitText, validate } from '../validation.js';
import { moveOrderTo } from './order-warehouse.js';
import { runCount, startCount } from './stock-count.js';
import { applyWaiting, follow, waitingFollows } from './stock.follows.js';
import { levelDrifts, lockLevels, recordMovements, repairLevels, type Movement } from './stock.repository.js';
import {
  availableOf,
  levelsPage,
  movementsPage,
  productsPage,
  productsBySku,
  warehousesOf,
  type LevelView,
  type MovementView,
  type ProductStockView,
  type WarehouseView,
} from './stock.views.js';
import {
  movementsBodySchema,
  movementsQuerySchema,
  productsQuerySchema,
  stockQuerySchema,
  thresholdBodySchema,
  warehouseBodySchema,
  warehousesQuerySchema,
  type MovementInput,
  type MovementsQuery,
  type StockQuery,
} from './stock.schemas.js';

/** Why an adjustment is refused: it would take what is on the shelf below nothing. */
export const belowZeroMessage = (sku: string, warehouse: string, onHand: number) =>
  `The adjustment would take ${sku} in ${warehouse} below 0 (${onHand} on hand).`;

/** The most a level holds on hand: a receipt or an adjustment past it is refused (the column is a 4-byte integer). */
export const ON_HAND_MAX = 1_000_000_000;
export const aboveMaxMessage = (sku: string, warehouse: string, onHand: number) =>
  `The movement would take ${sku} in ${warehouse} above ${ON_HAND_MAX} (${onHand} on hand).`;

/**
 * Receipts and adjustments (1 to 1,000, atomic): every sku must be an active product of the account and every
 * warehouse one of its own (none named: its default); an adjustment never takes on_hand below 0. A bad item is a 422
 * under `movements.<i>` and nothing is recorded.
 */
async function record(core: Core, actor: Actor, body: unknown): Promise<{ movements: number }> {
  authorize(actor, 'create', 'stock');
  const v = validate<{ account_id?: number; movements: MovementInput[] }>(movementsBodySchema, body);
  if (v.account_id !== undefined) namedAccountScope(actor, v.account_id);
  const { sequelize } = core.db;
  const accountId = await newRowAccount(sequelize, actor, v.account_id);
  authorize(actor, 'create', 'stock', { account_id: accountId });
  const errors: Record<string, string[]> = {};
  const warehouses = await warehousesOf(sequelize, accountId);
  const products = await productsBySku(sequelize, accountId, [...new Set(v.movements.map((m) => m.sku))]);
  const rows: Movement[] = [];
  v.movements.forEach((m, i) => {
    const product = products.get(m.sku.toLowerCase());
    const warehouse = m.warehouse
      ? warehouses.find((w) => w.code === m.warehouse)
      : warehouses.find((w) => w.is_default);
    if (!product) errors[`movements.${i}.sku`] = [`The sku ${m.sku} is not an active product of the account.`];
    if (!warehouse) errors[`movements.${i}.warehouse`] = [`The warehouse ${m.warehouse} is not one of the account's.`];
    if (product && warehouse) {
      const reason = m.reason || null;
      const base = { accountId, productId: product.id, warehouseId: warehouse.id, sku: product.sku, reason };
      rows.push({ ...base, kind: m.kind, quantity: m.quantity, reservedChange: 0 });
    }
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  await sequelize.transaction(async (transaction) => {
    await applyWaiting(sequelize, transaction, accountId); // what left is off the shelf before a count is corrected
    const levels = await lockLevels(sequelize, transaction, accountId, rows);
    const after = new Map<string, number>();
    rows.forEach((r, i) => {
      const key = `${r.productId} ${r.warehouseId}`;
      const level = levels.find((l) => `${l.productId} ${l.warehouseId}` === key);
      const onHand = (after.get(key) ?? level?.onHand ?? 0) + r.quantity;
      after.set(key, onHand);
      const code = warehouses.find((w) => w.id === r.warehouseId)!.code;
      if (r.kind === 'adjustment' && onHand < 0)
        errors[`movements.${i}.quantity`] = [belowZeroMessage(r.sku, code, onHand - r.quantity)];
      if (onHand > ON_HAND_MAX) errors[`movements.${i}.quantity`] = [aboveMaxMessage(r.sku, code, onHand - r.quantity)];
    });
    if (Object.keys(errors).length) throw new ValidationError(errors);
    await recordMovements(sequelize, transaction, rows, { name: actor.name, userId: actorUserId(actor) });
  });
  return { movements: rows.length };
}

/** Levels by sku then warehouse; the panel's page asks for the low ones first (`lowFirst`). */
async function list(core: Core, actor: Actor, query: unknown, lowFirst = false): Promise<Page<LevelView>> {
  authorize(actor, 'viewAny', 'stock');
  const q = validate<StockQuery>(stockQuerySchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await levelsPage(core.db.sequelize, { ...q, accountId }, lowFirst);
  return { data: rows, total, page: q.page, perPage: q.per_page };
}

async function movements(core: Core, actor: Actor, query: unknown): Promise<Page<MovementView>> {
  authorize(actor, 'viewAny', 'stock');
  const q = validate<MovementsQuery>(movementsQuerySchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await movementsPage(core.db.sequelize, { ...q, accountId });
  return { data: rows, total, page: q.page, perPage: q.per_page };
}

async function listWarehouses(core: Core, actor: Actor, query: unknown) {
  authorize(actor, 'viewAny', 'stock');
  const q = validate<{ account_id?: number }>(warehousesQuerySchema, query ?? {});
  return warehousesOf(core.db.sequelize, namedAccountScope(actor, q.account_id));
}

async function createWarehouse(core: Core, actor: Actor, body: unknown): Promise<WarehouseView> {
  authorize(actor, 'create', 'stock');
  const v = validate<{ account_id?: number; code: string; name: string }>(warehouseBodySchema, body);
  if (v.account_id !== undefined) namedAccountScope(actor, v.account_id);
  const { sequelize } = core.db;
  const accountId = await newRowAccount(sequelize, actor, v.account_id);
  authorize(actor, 'create', 'stock', { account_id: accountId });
  if ((await warehousesOf(sequelize, accountId)).some((w) => w.code === v.code))
    throw ValidationError.single('code', `The warehouse code ${v.code} is taken.`);
  const [row] = await sequelize.query<WarehouseView>(
    `INSERT INTO warehouses (account_id, code, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
     RETURNING id, account_id, code, name, is_default, created_at`,
    { bind: [accountId, v.code, v.name], type: 'SELECT' as never },
  );
  if (!row) throw new ConflictError(`The warehouse code ${v.code} is taken.`);
  return { ...row, created_at: new Date(row.created_at).toISOString() };
}

async function products(core: Core, actor: Actor, query: unknown): Promise<Page<ProductStockView>> {
  authorize(actor, 'viewAny', 'stock');
  const q = validate<{ page: number; per_page: number; account_id?: number; sku?: string }>(
    productsQuerySchema,
    query ?? {},
  );
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await productsPage(core.db.sequelize, { ...q, accountId });
  return { data: rows, total, page: q.page, perPage: q.per_page };
}

/** Sets a product's low-stock threshold (the product by sku, in the actor's account or the one an admin names). */
async function setThreshold(core: Core, actor: Actor, sku: string, body: unknown): Promise<ProductStockView> {
  authorize(actor, 'update', 'stock');
  const v = validate<{ account_id?: number; low_stock_threshold: number }>(thresholdBodySchema, body);
  const accountId = namedAccountScope(actor, v.account_id) ?? actor.accountId;
  const { sequelize } = core.db;
  // a path segment no sku can be (control characters, too long) names no product: 404, never a database error
  const named = typeof sku === 'string' && sku.length <= 100 && isFitText(sku) ? sku : null;
  const product =
    accountId && named ? (await productsBySku(sequelize, accountId, [named])).get(named.toLowerCase()) : null;
  if (!product) throw new NotFoundError();
  authorize(actor, 'update', 'stock', { account_id: accountId });
  await sequelize.query('UPDATE products SET low_stock_threshold = $2, updated_at = now() WHERE id = $1', {
    bind: [product.id, v.low_stock_threshold],
  });
  const { rows } = await productsPage(sequelize, { accountId: accountId!, sku: product.sku, page: 1, per_page: 1 });
  return rows[0];
}

type WithLines = { id: number; account_id: number; products: { sku: string }[] };

/**
 * A lead's or an order's show with `available` beside each product line: what the warehouse has left (the order's
 * own, the account's default for a lead), where the decision to confirm or promise a date is made. A line whose sku is
 * no active product any more has null.
 */
async function withAvailable<T extends WithLines>(core: Core, shown: T, kind: 'lead' | 'order') {
  const skus = [...new Set(shown.products.map((p) => p.sku.toLowerCase()))];
  const orderId = kind === 'order' ? shown.id : undefined;
  const left = skus.length ? await availableOf(core.db.sequelize, shown.account_id, skus, orderId) : new Map();
  return {
    ...shown,
    products: shown.products.map((p) => ({ ...p, available: left.get(p.sku.toLowerCase()) ?? null })),
  };
}

/** stock:check: the levels that differ from the ledger, written again from it with `repair` (CLI only). */
async function check(core: Core, actor: Actor, repair: boolean) {
  if (actor.kind !== 'system') throw new NotFoundError();
  const { sequelize } = core.db;
  const drifts = await levelDrifts(sequelize);
  if (repair && drifts.length) await sequelize.transaction((t) => repairLevels(sequelize, t));
  // orders that left or came back and wait for the worker: the levels agree with the ledger, which is behind by them
  return { drifts, repaired: repair ? drifts.length : 0, ...(await waitingFollows(sequelize)) };
}

export function createStockService(core: Core) {
  return {
    list: (actor: Actor, query: unknown, lowFirst = false) => list(core, actor, query, lowFirst),
    record: (actor: Actor, body: unknown) => record(core, actor, body),
    movements: (actor: Actor, query: unknown) => movements(core, actor, query),
    warehouses: (actor: Actor, query?: unknown) => listWarehouses(core, actor, query),
    createWarehouse: (actor: Actor, body: unknown) => createWarehouse(core, actor, body),
    products: (actor: Actor, query: unknown) => products(core, actor, query),
    setThreshold: (actor: Actor, sku: string, body: unknown) => setThreshold(core, actor, sku, body),
    check: (actor: Actor, repair = false) => check(core, actor, repair),
    /** The stock count import (stock-count.ts): the role check before the upload is read, the upload, the job. */
    authorizeCount: (actor: Actor) => authorize(actor, 'create', 'stock'),
    startCount: (actor: Actor, file: UploadedFile, options?: unknown) => startCount(core, actor, file, options),
    runCount: (runId: number, handedBack?: AbortSignal) => runCount(core, runId, handedBack),
    /** Applies the orders' shipments and returns that wait (stock.follows.ts); the `follow-stock` job calls it. */
    follow: () => follow(core.db.sequelize),
    /** A new order shipped from another warehouse of its account (order-warehouse.ts). */
    moveOrderTo: (actor: Actor, orderId: number, body: unknown) => moveOrderTo(core, actor, orderId, body),
    withAvailable: <T extends WithLines>(shown: T, kind: 'lead' | 'order') => withAvailable(core, shown, kind),
  };
}
export type StockService = ReturnType<typeof createStockService>;
