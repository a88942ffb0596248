import type { Transaction } from 'sequelize';
import type { Core } from '../context.js';
import type { OrderStatus } from '../orders/order.model.js';

// How an order's money follows its status (docs/cash.md, "The money of an order"), wired to orders.moved in
// src/reactions.ts, in the transaction that moved the orders.

const SETTLED: readonly OrderStatus[] = ['delivered', 'returned'];

/**
 * Orders delivered or returned get their money, fixed then from the account's buyer delivery fee and their carrier's
 * tariff (a fee for the order's city before the flat one), in one statement:
 * - `cod_amount`: what the courier collects, the order's total plus the buyer delivery fee;
 * - `delivery_fee`, and `return_fee` for a returned order; `cod_commission` (a percentage of the cash collected) for a
 *   delivered one;
 * - a delivered order is `to_collect` from now on (`delivered_at`); a returned one costs its fees and is never to
 *   collect.
 */
export async function settleOrders(
  core: Core,
  p: { transaction: Transaction; moves: { orderId: number; from: OrderStatus; to: OrderStatus }[] },
): Promise<void> {
  const moves = [
    ...new Map(p.moves.filter((m) => m.from !== m.to && SETTLED.includes(m.to)).map((m) => [m.orderId, m])).values(),
  ];
  if (moves.length === 0) return;
  await core.db.sequelize.query(
    `WITH v AS (SELECT * FROM unnest($1::bigint[], $2::text[]) AS v(id, status)),
     x AS (
       SELECT o.id, v.status, round(o.total * 100)::bigint + a.buyer_delivery_fee AS cod,
              coalesce(f.delivery_fee, c.delivery_fee, 0) AS df, coalesce(f.return_fee, c.return_fee, 0) AS rf,
              coalesce(c.cod_commission_percent, 0) AS pct
         FROM v JOIN orders o ON o.id = v.id JOIN accounts a ON a.id = o.account_id
         LEFT JOIN shipping_companies c ON c.id = o.shipping_company_id
         LEFT JOIN shipping_city_fees f ON f.shipping_company_id = c.id AND lower(f.city) = lower(o.city))
     UPDATE orders o
        SET cod_amount = x.cod, delivery_fee = x.df,
            return_fee = CASE WHEN x.status = 'returned' THEN x.rf ELSE 0 END,
            cod_commission = CASE WHEN x.status = 'delivered' THEN round(x.cod * x.pct / 100)::bigint ELSE 0 END,
            payment_status = CASE WHEN x.status = 'delivered' THEN 'to_collect' ELSE o.payment_status END,
            delivered_at = CASE WHEN x.status = 'delivered' THEN now() ELSE o.delivered_at END
       FROM x WHERE o.id = x.id`,
    { bind: [moves.map((m) => m.orderId), moves.map((m) => m.to)], transaction: p.transaction },
  );
}
