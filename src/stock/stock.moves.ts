import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import { ADD_TO_LEVELS, INSERT_MOVEMENTS, type MovedBy } from './stock.repository.js';

// Stock moved with the orders (stock.reactions.ts) where their lines are: one statement per write, the lines never
// leave the database (docs/performance.md, "Stock upkeep"): the reservation of new orders of accounts that do not
// enforce, and every move and release.

/**
 * Reserves the lines of orders created in this transaction (none canceled) in their warehouses, in one statement that
 * reads them where they are: what reserveOrders does for accounts that do not enforce their stock, without the lines'
 * round trip through the process.
 */
export async function reserveInPlace(
  sequelize: Sequelize,
  transaction: Transaction,
  orderIds: number[],
  by: MovedBy,
): Promise<void> {
  await sequelize.query(
    `WITH lines AS (
       SELECT o.account_id, op.product_id, w.id AS warehouse_id, min(op.sku) AS sku, sum(op.quantity)::int AS quantity,
              o.id, o.reference
         FROM orders o JOIN order_products op ON op.order_id = o.id AND op.product_id IS NOT NULL
         JOIN warehouses w ON w.account_id = o.account_id
          AND (w.id = o.warehouse_id OR (o.warehouse_id IS NULL AND w.is_default))
        WHERE o.id = ANY ($1::bigint[]) AND o.status <> 'canceled'
        GROUP BY o.id, op.product_id, w.id),
     m AS (
       ${INSERT_MOVEMENTS}
       SELECT account_id, product_id, warehouse_id, sku, 'reservation', quantity, quantity, id, reference, NULL, $2, $3
         FROM lines ORDER BY id, product_id
       RETURNING account_id, product_id, warehouse_id, kind, quantity, reserved_change)
     ${ADD_TO_LEVELS}`,
    { bind: [orderIds, by.name, by.userId], transaction },
  );
}

/** Whether any of the orders' accounts enforces its stock (stock_policy `enforce`). */
export async function anyEnforcing(sequelize: Sequelize, transaction: Transaction, orderIds: number[]) {
  const [row] = await select<{ enforcing: boolean | null }>(
    sequelize,
    `SELECT bool_or(a.stock_policy = 'enforce') AS enforcing FROM accounts a
      WHERE a.id IN (SELECT o.account_id FROM orders o WHERE o.id = ANY ($1::bigint[]))`,
    [orderIds],
    transaction,
  );
  return row?.enforcing === true;
}

/**
 * Moves stock with the orders' moves (`to`: each order's new status, in the order of `orderIds`), in one statement
 * that reads the lines and what the ledger holds of them where they are: `canceled` releases what the order still
 * holds; leaving (`shipped`, `delivered`, `returned`) ships the lines of an order that has not shipped (on_hand falls,
 * its reservation ends), and `returned` puts them back.
 */
export async function moveInPlace(
  sequelize: Sequelize,
  transaction: Transaction,
  orderIds: number[],
  to: string[],
  by: MovedBy,
): Promise<void> {
  await sequelize.query(
    `WITH mv AS (SELECT * FROM unnest($1::bigint[], $2::text[]) AS v(id, status)),
     lines AS (
       SELECT o.account_id, op.product_id, w.id AS warehouse_id, min(op.sku) AS sku, sum(op.quantity)::int AS quantity,
              o.id, o.reference, min(mv.status) AS status
         FROM orders o JOIN mv ON mv.id = o.id
         CROSS JOIN LATERAL (SELECT x.product_id, x.sku, x.quantity FROM order_products x
                              WHERE x.order_id = o.id AND x.product_id IS NOT NULL OFFSET 0) op
         JOIN warehouses w ON w.account_id = o.account_id
          AND (w.id = o.warehouse_id OR (o.warehouse_id IS NULL AND w.is_default))
        WHERE o.id = ANY ($1::bigint[])
        GROUP BY o.id, op.product_id, w.id),
     ledger AS (
       -- one index probe per order, fenced (OFFSET 0): with statistics behind a table that grew, the planner read
       -- the whole ledger and every order line instead (30 to 50 ms at 300,000 rows)
       SELECT m.order_id, m.product_id, sum(m.reserved_change)::int AS open, bool_or(m.kind = 'shipment') AS shipped
         FROM unnest($1::bigint[]) AS k(id)
         CROSS JOIN LATERAL (SELECT order_id, product_id, reserved_change, kind FROM stock_movements
                              WHERE order_id = k.id OFFSET 0) m
        GROUP BY m.order_id, m.product_id),
     left_orders AS (SELECT order_id FROM ledger GROUP BY order_id HAVING bool_or(shipped)),
     steps AS MATERIALIZED (
       SELECT l.*, coalesce(g.open, 0) AS open, x.order_id IS NOT NULL AS shipped
         FROM lines l LEFT JOIN ledger g ON g.order_id = l.id AND g.product_id = l.product_id
         LEFT JOIN left_orders x ON x.order_id = l.id),
     rows AS (
       SELECT *, 'release' AS kind, -open AS q, -open AS r, 1 AS step FROM steps WHERE status = 'canceled' AND open <> 0
       UNION ALL
       SELECT *, 'shipment', -quantity, -open, 1 FROM steps WHERE status <> 'canceled' AND NOT shipped
       UNION ALL
       SELECT *, 'return', quantity, 0, 2 FROM steps WHERE status = 'returned'),
     m AS (
       ${INSERT_MOVEMENTS}
       SELECT account_id, product_id, warehouse_id, sku, kind, q, r, id, reference, NULL, $3, $4
         FROM rows ORDER BY id, product_id, step
       RETURNING account_id, product_id, warehouse_id, kind, quantity, reserved_change)
     ${ADD_TO_LEVELS}`,
    { bind: [orderIds, to, by.name, by.userId], transaction },
  );
}
