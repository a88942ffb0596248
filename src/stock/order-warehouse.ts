import Joi from 'joi';
import type { Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { authorize, namedAccountScope } from '../policy.js';
import { select } from '../query.js';
import { validate } from '../validation.js';
import { reserveOrders } from './stock.reactions.js';
import { lockLevels, recordMovements, type MovedBy, type Movement } from './stock.repository.js';
import { warehousesOf } from './stock.views.js';

const bodySchema = Joi.object({
  warehouse: Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z0-9_-]{1,30}$/)
    .required(),
});

interface OrderRow {
  id: number;
  account_id: number;
  reference: string;
  status: string;
  push_state: string | null;
  warehouse_id: number | null;
}

/** The order, locked, in the actor's scope; refused unless it is new and not on its way to the carrier. */
async function lockedOrder(core: Core, actor: Actor, orderId: number, transaction: Transaction): Promise<OrderRow> {
  const scope = namedAccountScope(actor, undefined) ?? null;
  const [order] = Number.isSafeInteger(orderId)
    ? await select<OrderRow>(
        core.db.sequelize,
        `SELECT id, account_id, reference, status, push_state, warehouse_id FROM orders
          WHERE id = $1 AND ($2::int IS NULL OR account_id = $2) FOR UPDATE`,
        [orderId, scope],
        transaction,
      )
    : [];
  if (!order) throw new NotFoundError();
  authorize(actor, 'update', 'stock', { account_id: order.account_id });
  // a push queued or on its way is the carrier's already, though the order says new until it answers
  const state = order.status !== 'new' ? order.status : ON_ITS_WAY.has(order.push_state ?? '') ? 'being pushed' : null;
  if (state)
    throw ValidationError.single('warehouse', `Only a new order changes warehouse; ${order.reference} is ${state}.`);
  return order;
}
const ON_ITS_WAY = new Set(['queued', 'sending', 'sent']);

/**
 * What the order holds in `from`, released there: both warehouses' levels of its products are locked first, in key
 * order, so two moves in opposite directions, or a move and a count, never wait for each other in a circle.
 */
async function releaseFrom(
  core: Core,
  transaction: Transaction,
  order: OrderRow,
  move: { from: number; to: number; toCode: string },
  by: MovedBy,
) {
  const { sequelize } = core.db;
  const held = await select<{ product_id: number; sku: string; open: number }>(
    sequelize,
    `SELECT product_id, min(sku) AS sku, sum(reserved_change)::int AS open FROM stock_movements
      WHERE order_id = $1 AND warehouse_id = $2 AND product_id IS NOT NULL
      GROUP BY product_id HAVING sum(reserved_change) <> 0`,
    [order.id, move.from],
    transaction,
  );
  const products = await select<{ product_id: number }>(
    sequelize,
    'SELECT DISTINCT product_id FROM order_products WHERE order_id = $1 AND product_id IS NOT NULL',
    [order.id],
    transaction,
  );
  const keys = products.flatMap((p) => [move.from, move.to].map((w) => ({ productId: p.product_id, warehouseId: w })));
  await lockLevels(sequelize, transaction, order.account_id, keys);
  const releases: Movement[] = held.map((h) => ({
    accountId: order.account_id,
    productId: h.product_id,
    warehouseId: move.from,
    sku: h.sku,
    kind: 'release',
    quantity: -h.open,
    reservedChange: -h.open,
    orderId: order.id,
    orderReference: order.reference,
    reason: `Moved to ${move.toCode}`,
  }));
  await recordMovements(sequelize, transaction, releases, by);
}

/**
 * Ships a new order from another warehouse of its account (the panel's "Warehouse" on an order): what the order holds
 * is released where it was and reserved where it goes, in one transaction with the order's row locked; an account
 * that enforces its stock refuses the move when the new warehouse is short (the same 422 under `stock` as a
 * confirmation). Only a `new` order moves: a pushed one is at the carrier already. Answers the warehouse's code and
 * whether anything changed.
 */
export async function moveOrderTo(core: Core, actor: Actor, orderId: number, body: unknown) {
  authorize(actor, 'update', 'stock');
  const { warehouse: code } = validate<{ warehouse: string }>(bodySchema, body);
  const { sequelize } = core.db;
  return sequelize.transaction(async (transaction) => {
    const order = await lockedOrder(core, actor, orderId, transaction);
    const warehouses = await warehousesOf(sequelize, order.account_id);
    const to = warehouses.find((w) => w.code === code);
    if (!to) throw ValidationError.single('warehouse', `The warehouse ${code} is not one of the account's.`);
    const from = warehouses.find((w) => (order.warehouse_id ? w.id === order.warehouse_id : w.is_default))!;
    if (from.id === to.id) return { warehouse: to.code, changed: false };
    const by = { name: actor.name, userId: actorUserId(actor) };
    await releaseFrom(core, transaction, order, { from: from.id, to: to.id, toCode: to.code }, by);
    await sequelize.query('UPDATE orders SET warehouse_id = $2, updated_at = now() WHERE id = $1', {
      bind: [order.id, to.id],
      transaction,
    });
    await reserveOrders(core, { transaction, orderIds: [order.id], by });
    return { warehouse: to.code, changed: true };
  });
}
