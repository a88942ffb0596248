import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import { ADD_TO_LEVELS, INSERT_MOVEMENTS, type MovedBy } from './stock.repository.js';

// The reservation of new orders (stock.reactions.ts) where their lines are: one statement per write for accounts that
// do not enforce, the lines never leave the database (docs/performance.md, "Stock upkeep").

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
         FROM orders o JOIN order_products op ON op.order_id = o.id
         JOIN warehouses w ON w.account_id = o.account_id
          AND (w.id = o.warehouse_id OR (o.warehouse_id IS NULL AND w.is_default))
        WHERE o.id = ANY ($1::bigint[]) AND o.status <> 'canceled' AND op.product_id IS NOT NULL
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
