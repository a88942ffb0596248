import type { Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ValidationError, type FieldErrors } from '../errors.js';
import { insertHistory } from '../histories/history.repository.js';
import { deleteBodySchema, deleteIdsSchema } from '../leads/lead.schemas.js';
import { accountScope, authorize } from '../policy.js';
import { lockByKeys, type RowKey } from '../query.js';
import { addError, validate } from '../validation.js';
import { ordersDeleting, ordersMoved } from './order.events.js';
import type { OrderStatus } from './order.model.js';
import { deleteOrders, lockCompanyOrders, ORDER_LOCK, setOrderStatuses, type LockedOrder } from './order.repository.js';
import {
  carrierCallbackSchema,
  orderUpdateBodySchema,
  type CarrierUpdate,
  type OrderStatusChange,
} from './order.schemas.js';
import { canMove, DELETABLE_ORDER_STATUSES } from './order.transitions.js';
import { pruneCallbacks, recordCallback, type CallbackSignature } from '../shipping/callback-replay.js';
import { CALLBACK_WINDOW_S } from '../shipping/shipping.service.js';

export type OrderMove = { row: LockedOrder; status: OrderStatus; tracking_number?: string; path: string };

/** Who a history entry names: the actor's display name and user, or a shipping company's name. */
export type ChangedBy = { name: string; userId: number | null };

/**
 * Applies status moves of locked orders under the transition table, with their history, in the caller's transaction
 * (REST, panel, carrier callbacks, the demo seed); an illegal move is a 422 naming the reference and the move.
 */
export async function applyOrderMoves(core: Core, transaction: Transaction, moves: OrderMove[], by: ChangedBy) {
  const errors: FieldErrors = {};
  for (const m of moves) {
    if (!canMove(m.row.status, m.status))
      addError(errors, m.path, `Order ${m.row.reference} cannot move from ${m.row.status} to ${m.status}.`);
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const { sequelize } = core.db;
  const changes = moves.map((m) => ({ id: m.row.id, status: m.status, tracking_number: m.tracking_number }));
  await setOrderStatuses(sequelize, transaction, changes);
  const history = moves
    .filter((m) => m.row.status !== m.status)
    .map(({ row, status }) => ({
      account_id: row.account_id,
      id: row.id,
      reference: row.reference,
      old: row.status,
      status,
    }));
  await insertHistory(sequelize, transaction, 'order', history, by);
  const moved = moves.map((m) => ({
    orderId: m.row.id,
    accountId: m.row.account_id,
    from: m.row.status,
    to: m.status,
  }));
  await ordersMoved.emit(core, { transaction, moves: moved, by });
}

/** Locks the orders a delete or a push names, in the actor's scope; an unknown one is an error at `<by>.<i>`. */
export function lockNamedOrders(core: Core, transaction: Transaction, actor: Actor, by: RowKey, keys: unknown[]) {
  const q = {
    by,
    keys: keys as (string | number)[],
    accountId: accountScope(actor).account_id,
    path: (i: number) => `${by}.${i}`,
  };
  return lockByKeys(core.db.sequelize, transaction, ORDER_LOCK, q);
}

/** Bulk status update under the transition table; atomic. By reference (REST) or id (panel). */
export async function updateStatuses(core: Core, actor: Actor, body: unknown, by: RowKey) {
  authorize(actor, 'update', 'order');
  const key = by === 'references' ? 'reference' : 'id';
  const { orders } = validate<{ orders: OrderStatusChange[] }>(orderUpdateBodySchema(key), body);
  const { sequelize } = core.db;
  return sequelize.transaction(async (transaction) => {
    const keys = orders.map((o) => (by === 'references' ? String(o.reference).toUpperCase() : Number(o.id)));
    const scope = accountScope(actor).account_id;
    const path = (i: number) => `orders.${i}.${key}`;
    const { byKey, errors } = await lockByKeys(sequelize, transaction, ORDER_LOCK, {
      by,
      keys,
      accountId: scope,
      path,
    });
    if (new Set(keys).size !== keys.length) addError(errors, 'orders', `The orders field has a duplicate ${key}.`);
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const moves = orders.map((o, i) => ({
      row: byKey.get(String(keys[i]))!,
      status: o.status as OrderStatus,
      tracking_number: o.tracking_number,
      path: `orders.${i}.status`,
    }));
    await applyOrderMoves(core, transaction, moves, { name: actor.name, userId: actorUserId(actor) });
    return { updated: orders.length };
  });
}

/** Deletes new or canceled orders (with products and history); any other status is protected. */
export async function deleteMany(core: Core, actor: Actor, body: unknown, by: RowKey): Promise<{ deleted: number }> {
  authorize(actor, 'delete', 'order');
  const keys: (string | number)[] =
    by === 'references'
      ? validate<{ references: string[] }>(deleteBodySchema, body).references.map((r) => r.toUpperCase())
      : validate<{ ids: number[] }>(deleteIdsSchema, body).ids;
  const { sequelize } = core.db;
  return sequelize.transaction(async (transaction) => {
    const { byKey, errors } = await lockNamedOrders(core, transaction, actor, by, keys);
    keys.forEach((k, i) => {
      const o = byKey.get(String(k));
      if (o && !DELETABLE_ORDER_STATUSES.includes(o.status))
        addError(
          errors,
          `${by}.${i}`,
          `The order ${o.reference} has the protected status ${o.status} and cannot be deleted.`,
        );
    });
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const ids = [...new Set([...byKey.values()].map((o) => o.id))];
    await ordersDeleting.emit(core, {
      transaction,
      orderIds: ids,
      by: { name: actor.name, userId: actorUserId(actor) },
    });
    await deleteOrders(sequelize, transaction, ids);
    return { deleted: ids.length };
  });
}

/**
 * Carrier status callback (its signature already verified): moves the company's orders to shipped / delivered /
 * returned, history by the company. `signed` is the callback's signature, recorded with the changes so that a replay
 * of it is refused (409) rather than applied again.
 */
export async function applyCarrierUpdates(core: Core, companyId: number, body: unknown, signed?: CallbackSignature) {
  const { orders: updates } = validate<{ orders: CarrierUpdate[] }>(carrierCallbackSchema, body);
  const company = (await core.models.ShippingCompany.findByPk(companyId))!;
  const { sequelize } = core.db;
  if (signed) await pruneCallbacks(sequelize, CALLBACK_WINDOW_S);
  return sequelize.transaction(async (transaction) => {
    if (signed) await recordCallback(sequelize, transaction, company.id, signed);
    const rows = await lockCompanyOrders(sequelize, transaction, company, updates);
    const errors: FieldErrors = {};
    const seen = new Set<number>();
    const moves = updates.map((u, i) => {
      const row = rows.find((r) =>
        u.reference ? r.reference === u.reference.toUpperCase() : r.tracking_number === u.tracking_number,
      );
      if (!row) addError(errors, `orders.${i}`, `The order in orders.${i} is unknown to ${company.name}.`);
      else if (seen.has(row.id))
        addError(errors, `orders.${i}`, `The order ${row.reference} appears twice in this update.`);
      if (row) seen.add(row.id);
      return { row: row!, status: u.status as OrderStatus, path: `orders.${i}.status` };
    });
    if (Object.keys(errors).length) throw new ValidationError(errors);
    await applyOrderMoves(core, transaction, moves, { name: company.name, userId: null });
    return { updated: moves.length };
  });
}
