import type { Transaction } from 'sequelize';
import type { Core } from '../context.js';
import { ValidationError } from '../errors.js';
import type { OrderStatus } from '../orders/order.model.js';
import { queueFollows } from './stock.follows.js';
import { anyEnforcing, moveInPlace, reserveInPlace } from './stock.moves.js';
import {
  lockLevels,
  orderNeeds,
  policiesOf,
  recordMovements,
  warehousesOfOrders,
  type Movement,
  type MovedBy,
  type OrderNeed,
} from './stock.repository.js';

// How stock follows the orders (docs/stock.md), wired to the orders' events in src/reactions.ts: each runs in the
// transaction that wrote the orders, so an order and its stock are written together or not at all.

const movement = (n: OrderNeed, kind: Movement['kind'], quantity: number, reservedChange: number): Movement => ({
  accountId: n.accountId,
  productId: n.productId,
  warehouseId: n.warehouseId,
  sku: n.sku,
  kind,
  quantity,
  reservedChange,
  orderId: n.orderId,
  orderReference: n.reference,
});

/** Why an enforcing account's order cannot be reserved: the sku, the warehouse and what is available. */
export const shortMessage = (sku: string, warehouse: string, available: number, needed: number) =>
  `Not enough stock of ${sku} in ${warehouse}: ${Math.max(available, 0)} available, ${needed} needed.`;

/**
 * Refuses the whole write when an account that enforces its stock would reserve more than is available of a product
 * in a warehouse, counting every order of the write together. The levels stay locked until the commit: a second
 * writer of the last unit waits, then reads what the first reserved.
 */
async function enforce(core: Core, transaction: Transaction, needs: OrderNeed[]): Promise<void> {
  const { sequelize } = core.db;
  const policies = await policiesOf(sequelize, transaction, [...new Set(needs.map((n) => n.accountId))]);
  const problems: string[] = [];
  for (const accountId of [...policies.keys()].sort((a, b) => a - b)) {
    const mine = needs.filter((n) => n.accountId === accountId);
    const wanted = new Map<string, { need: OrderNeed; quantity: number }>();
    for (const n of mine) {
      const key = `${n.productId} ${n.warehouseId}`;
      wanted.set(key, { need: n, quantity: (wanted.get(key)?.quantity ?? 0) + n.quantity });
    }
    const levels = await lockLevels(
      sequelize,
      transaction,
      accountId,
      [...wanted.values()].map((w) => w.need),
    );
    if (policies.get(accountId) !== 'enforce') continue;
    for (const [key, { need, quantity }] of wanted) {
      const level = levels.find((l) => `${l.productId} ${l.warehouseId}` === key);
      const available = level ? level.onHand - level.reserved : 0;
      if (quantity > available) problems.push(shortMessage(need.sku, need.warehouseCode, available, quantity));
    }
  }
  if (problems.length) throw new ValidationError({ stock: problems });
}

/**
 * Places the orders in the warehouses their items named (`codes`, in the order of `orderIds`); an order naming a code
 * its account has not is refused under `orders.<i>.warehouse`, and the whole write with it.
 */
async function placeOrders(core: Core, transaction: Transaction, orderIds: number[], codes: (string | undefined)[]) {
  const named = orderIds
    .map((id, i) => ({ id, i, code: codes[i]?.trim().toUpperCase() }))
    .filter((o): o is { id: number; i: number; code: string } => !!o.code);
  if (named.length === 0) return;
  const found = await warehousesOfOrders(core.db.sequelize, transaction, named);
  const errors: Record<string, string[]> = {};
  for (const o of named)
    if (!found.has(o.id)) errors[`orders.${o.i}.warehouse`] = [`The warehouse ${o.code} is not one of the account's.`];
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/** New orders reserve their lines in their warehouse (an order created canceled reserves nothing). */
export async function reserveOrders(
  core: Core,
  p: { transaction: Transaction; orderIds: number[]; by: MovedBy; warehouses?: (string | undefined)[] },
): Promise<void> {
  const { sequelize } = core.db;
  if (p.warehouses) await placeOrders(core, p.transaction, p.orderIds, p.warehouses);
  // the common case, no account of the write enforcing: one statement, the lines never leave the database
  if (!(await anyEnforcing(sequelize, p.transaction, p.orderIds)))
    return reserveInPlace(sequelize, p.transaction, p.orderIds, p.by);
  const needs = (await orderNeeds(sequelize, p.transaction, p.orderIds)).filter((n) => n.status !== 'canceled');
  if (needs.length === 0) return;
  await enforce(core, p.transaction, needs);
  const rows = needs.map((n) => movement(n, 'reservation', n.quantity, n.quantity));
  await recordMovements(sequelize, p.transaction, rows, p.by);
}

const LEFT: readonly OrderStatus[] = ['shipped', 'delivered', 'returned'];

/**
 * Moves stock with the orders' moves: a cancellation releases what the order holds, at once, in one statement where the
 * lines are (stock.moves.ts, moveInPlace). Leaving (shipped, or delivered or returned reached without shipped: the
 * lines come off the shelf and the reservation ends) and coming back (a return puts them back) are queued for the
 * worker (stock.follows.ts): neither makes less stock available.
 */
export async function moveOrders(
  core: Core,
  p: {
    transaction: Transaction;
    moves: { orderId: number; accountId: number; from: OrderStatus; to: OrderStatus }[];
    by: MovedBy;
  },
): Promise<void> {
  const moves = p.moves.filter((m) => m.from !== m.to && (m.to === 'canceled' || LEFT.includes(m.to)));
  if (moves.length === 0) return;
  // an order named twice moves once, to its last status
  const last = [...new Map(moves.map((m) => [m.orderId, m])).values()];
  const left = last.filter((m) => m.to !== 'canceled');
  if (left.length) await queueFollows(core.db.sequelize, p.transaction, left, p.by);
  const canceled = last.filter((m) => m.to === 'canceled').map((m) => m.orderId);
  if (canceled.length) await releaseOrders(core, { ...p, orderIds: canceled });
}

/** Orders canceled or about to be deleted release what they still hold. */
export async function releaseOrders(
  core: Core,
  p: { transaction: Transaction; orderIds: number[]; by: MovedBy },
): Promise<void> {
  if (p.orderIds.length === 0) return;
  const canceled = p.orderIds.map(() => 'canceled');
  await moveInPlace(core.db.sequelize, p.transaction, p.orderIds, canceled, p.by);
}
