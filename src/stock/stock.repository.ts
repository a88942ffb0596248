import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import { ON_HAND_KINDS, type MovementKind } from './stock.schemas.js';

// The statements of stock (docs/stock.md). Every movement is one ledger row, and the levels it changes are kept in the
// same statement: `on_hand` by `quantity` for the kinds that move goods, `reserved` by `reserved_change`.

const ON_HAND = `ARRAY['${ON_HAND_KINDS.join("','")}']`;

export const INSERT_MOVEMENTS = `INSERT INTO stock_movements (account_id, product_id, warehouse_id, sku, kind,
                                    quantity, reserved_change, order_id, order_reference, reason, changed_by, user_id)`;

/** Adds the movements of the CTE `m` to their levels, written in key order (as lockLevels locks them). */
export const ADD_TO_LEVELS = `
     INSERT INTO stock_levels AS s (account_id, product_id, warehouse_id, on_hand, reserved)
     SELECT account_id, product_id, warehouse_id,
            coalesce(sum(quantity) FILTER (WHERE kind = ANY (${ON_HAND})), 0), sum(reserved_change)
       FROM m GROUP BY account_id, product_id, warehouse_id ORDER BY account_id, product_id, warehouse_id
     ON CONFLICT (account_id, product_id, warehouse_id) DO UPDATE
       SET on_hand = s.on_hand + EXCLUDED.on_hand, reserved = s.reserved + EXCLUDED.reserved, updated_at = now()`;

/** deadlock_detected, serialization_failure: another writer met on the same levels; the work is done again. */
const RETRYABLE = new Set(['40P01', '40001']);
export function isRetryable(err: unknown): boolean {
  const e = err as { code?: string; original?: { code?: string }; parent?: { code?: string } };
  return RETRYABLE.has(e.original?.code ?? e.parent?.code ?? e.code ?? '');
}

/** One movement to record. */
export interface Movement {
  accountId: number;
  productId: number;
  warehouseId: number;
  sku: string;
  kind: MovementKind;
  quantity: number;
  reservedChange: number;
  orderId?: number | null;
  orderReference?: string | null;
  reason?: string | null;
}

/** Who records them: a person's or a token's name (and user), a carrier's name, or `system`. */
export interface MovedBy {
  name: string;
  userId: number | null;
}

/**
 * Appends `rows` to the ledger and adds them to the levels, in one statement of the caller's transaction; the levels
 * are written in key order, as lockLevels locks them.
 */
export async function recordMovements(
  sequelize: Sequelize,
  transaction: Transaction,
  rows: Movement[],
  by: MovedBy,
): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof Movement>(k: K) => rows.map((r) => r[k] ?? null);
  await sequelize.query(
    `WITH m AS (
       ${INSERT_MOVEMENTS}
       SELECT v.*, $11, $12
         FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bigint[],
                     $9::text[], $10::text[]) AS v
       RETURNING account_id, product_id, warehouse_id, kind, quantity, reserved_change)
     ${ADD_TO_LEVELS}`,
    {
      bind: [
        col('accountId'),
        col('productId'),
        col('warehouseId'),
        col('sku'),
        col('kind'),
        col('quantity'),
        col('reservedChange'),
        col('orderId'),
        col('orderReference'),
        col('reason'),
        by.name,
        by.userId,
      ],
      transaction,
    },
  );
}

export interface LevelKey {
  productId: number;
  warehouseId: number;
}
export interface LockedLevel extends LevelKey {
  onHand: number;
  reserved: number;
}

/**
 * Locks the levels of `keys` in key order (two writers of the same products never wait for each other in a circle)
 * and answers them; a level never written is not among them (nothing on hand, nothing reserved).
 */
export async function lockLevels(
  sequelize: Sequelize,
  transaction: Transaction,
  accountId: number,
  keys: LevelKey[],
): Promise<LockedLevel[]> {
  if (keys.length === 0) return [];
  return select<LockedLevel>(
    sequelize,
    `SELECT s.product_id AS "productId", s.warehouse_id AS "warehouseId", s.on_hand AS "onHand", s.reserved
       FROM stock_levels s JOIN unnest($2::int[], $3::int[]) AS k(p, w) ON s.product_id = k.p AND s.warehouse_id = k.w
      WHERE s.account_id = $1
      ORDER BY s.product_id, s.warehouse_id FOR UPDATE OF s`,
    [accountId, keys.map((k) => k.productId), keys.map((k) => k.warehouseId)],
    transaction,
  );
}

/** A new order's line as stock sees it: what it needs of which product, from which warehouse. */
export interface OrderNeed {
  orderId: number;
  accountId: number;
  reference: string;
  status: string;
  productId: number;
  warehouseId: number;
  warehouseCode: string;
  sku: string;
  quantity: number;
}

/**
 * The product lines of `orderIds` (orders created in this transaction, of an account that enforces its stock) per
 * product, each with its order's warehouse (an order that names none is in the account's default one, which never
 * changes). A line whose product was deleted has nothing to reserve.
 */
export async function orderNeeds(sequelize: Sequelize, transaction: Transaction, orderIds: number[]) {
  if (orderIds.length === 0) return [];
  return select<OrderNeed>(
    sequelize,
    `SELECT o.id AS "orderId", o.account_id AS "accountId", o.reference, o.status, op.product_id AS "productId",
            w.id AS "warehouseId", w.code AS "warehouseCode", min(op.sku) AS sku, sum(op.quantity)::int AS quantity
       FROM orders o JOIN order_products op ON op.order_id = o.id AND op.product_id IS NOT NULL
       JOIN warehouses w ON w.account_id = o.account_id
        AND (w.id = o.warehouse_id OR (o.warehouse_id IS NULL AND w.is_default))
      WHERE o.id = ANY ($1::bigint[])
      GROUP BY o.id, op.product_id, w.id
      ORDER BY o.id, op.product_id`,
    [orderIds],
    transaction,
  );
}

/**
 * Puts each of `named` orders in its account's warehouse of that code; answers the orders placed (an order whose
 * account has no such warehouse is not among them, and keeps none).
 */
export async function warehousesOfOrders(
  sequelize: Sequelize,
  transaction: Transaction,
  named: { id: number; code: string }[],
): Promise<Set<number>> {
  const rows = await select<{ id: number }>(
    sequelize,
    `UPDATE orders o SET warehouse_id = w.id
       FROM unnest($1::bigint[], $2::text[]) AS v(id, code) JOIN warehouses w ON w.code = v.code
      WHERE o.id = v.id AND w.account_id = o.account_id
     RETURNING o.id`,
    [named.map((n) => n.id), named.map((n) => n.code)],
    transaction,
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** The accounts' stock policies. */
export async function policiesOf(sequelize: Sequelize, transaction: Transaction, accountIds: number[]) {
  const rows = await select<{ id: number; stock_policy: string }>(
    sequelize,
    'SELECT id, stock_policy FROM accounts WHERE id = ANY ($1::int[])',
    [accountIds],
    transaction,
  );
  return new Map(rows.map((r) => [r.id, r.stock_policy]));
}

/** Levels that differ from what the ledger adds up to (stock:check), per account, product and warehouse. */
export interface LevelDrift {
  account_id: number;
  product_id: number;
  warehouse_id: number;
  on_hand: number;
  reserved: number;
  ledger_on_hand: number;
  ledger_reserved: number;
}

const LEDGER = `
  SELECT account_id, product_id, warehouse_id,
         coalesce(sum(quantity) FILTER (WHERE kind = ANY (${ON_HAND})), 0)::int AS on_hand,
         sum(reserved_change)::int AS reserved
    FROM stock_movements WHERE product_id IS NOT NULL GROUP BY account_id, product_id, warehouse_id`;

export async function levelDrifts(sequelize: Sequelize, transaction?: Transaction): Promise<LevelDrift[]> {
  return select<LevelDrift>(
    sequelize,
    `WITH g AS (${LEDGER})
     SELECT coalesce(s.account_id, g.account_id) AS account_id, coalesce(s.product_id, g.product_id) AS product_id,
            coalesce(s.warehouse_id, g.warehouse_id) AS warehouse_id, coalesce(s.on_hand, 0) AS on_hand,
            coalesce(s.reserved, 0) AS reserved, coalesce(g.on_hand, 0) AS ledger_on_hand,
            coalesce(g.reserved, 0) AS ledger_reserved
       FROM stock_levels s FULL JOIN g USING (account_id, product_id, warehouse_id)
      WHERE coalesce(s.on_hand, 0) <> coalesce(g.on_hand, 0) OR coalesce(s.reserved, 0) <> coalesce(g.reserved, 0)
      ORDER BY 1, 2, 3`,
    [],
    transaction,
  );
}

/** Writes the levels again from the ledger (stock:check --repair), every level locked for the statement. */
export async function repairLevels(sequelize: Sequelize, transaction: Transaction): Promise<void> {
  await sequelize.query('LOCK TABLE stock_levels IN SHARE ROW EXCLUSIVE MODE', { transaction });
  await sequelize.query(
    `WITH g AS (${LEDGER})
     INSERT INTO stock_levels AS s (account_id, product_id, warehouse_id, on_hand, reserved)
     SELECT account_id, product_id, warehouse_id, on_hand, reserved FROM g
     ON CONFLICT (account_id, product_id, warehouse_id) DO UPDATE
       SET on_hand = EXCLUDED.on_hand, reserved = EXCLUDED.reserved, updated_at = now()
       WHERE (s.on_hand, s.reserved) IS DISTINCT FROM (EXCLUDED.on_hand, EXCLUDED.reserved)`,
    { transaction },
  );
  await sequelize.query(
    `UPDATE stock_levels s SET on_hand = 0, reserved = 0, updated_at = now()
      WHERE (s.on_hand <> 0 OR s.reserved <> 0) AND NOT EXISTS (
        SELECT 1 FROM stock_movements m WHERE m.account_id = s.account_id AND m.product_id = s.product_id
           AND m.warehouse_id = s.warehouse_id)`,
    { transaction },
  );
}
