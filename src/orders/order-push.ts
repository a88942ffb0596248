import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ValidationError } from '../errors.js';
import { insertHistory } from '../histories/history.repository.js';
import { crashPoint } from '../faults.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId, type RowKey } from '../query.js';
import { sendOrder } from '../shipping/carrier.adapter.js';
import type { ShippingService } from '../shipping/shipping.service.js';
import { addError, validate } from '../validation.js';
import { lockNamedOrders } from './order-writes.js';
import { ordersMoved } from './order.events.js';
import { pushBodySchema, type PushInput } from './order.schemas.js';

export const PUSH_JOB = 'push-order';

/** Why an order of total 0 is never pushed (a cash-on-delivery parcel with nothing to collect). */
export const zeroTotalMessage = (reference: string) =>
  `Order ${reference} has a total of 0: an order with nothing to collect cannot be pushed.`;

export interface PushResult {
  queued: number;
  skipped: number;
  /** The name of the shipping company the orders were queued for. */
  company: string;
}

/**
 * Queues new orders for the shipping company (URGENT jobs). An order already queued, being sent or sent is not
 * queued again, so a repeated request never makes a second carrier call. By reference with a named company
 * (REST), or by id (panel), where the company, unless named, is the account's only active one (several: the caller
 * must choose): the orders of one push belong to one account, and go to that account's carrier, whoever asks.
 */
export async function push(core: Core, shipping: ShippingService, actor: Actor, body: unknown, by: RowKey) {
  authorize(actor, 'update', 'order');
  const v = validate<PushInput>(pushBodySchema(by), body);
  const keys = by === 'references' ? [...new Set(v.references!.map((r) => r.toUpperCase()))] : [...new Set(v.ids!)];
  const { sequelize } = core.db;
  const data = { requestedBy: actor.name, userId: actorUserId(actor) };
  const { toQueue, company } = await sequelize.transaction(async (transaction) => {
    const { byKey, errors } = await lockNamedOrders(core, transaction, actor, by, keys);
    keys.forEach((k, i) => {
      const o = byKey.get(String(k));
      if (o && o.status !== 'new')
        addError(errors, `${by}.${i}`, `Order ${o.reference} is ${o.status}; only new orders can be pushed.`);
      else if (o && !(Number(o.total) > 0)) addError(errors, `${by}.${i}`, zeroTotalMessage(o.reference));
    });
    const accounts = new Set([...byKey.values()].map((o) => o.account_id));
    if (accounts.size > 1) addError(errors, by, 'Push the orders of one account at a time.');
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const accountId = [...accounts][0];
    const chosen = v.shipping_company
      ? await shipping.findForPush(accountId, v.shipping_company)
      : await shipping.onlyActive(accountId);
    const fresh = [...byKey.values()].filter((o) => !['queued', 'sending', 'sent'].includes(o.push_state ?? ''));
    await core.models.Order.update(
      { push_state: 'queued', shipping_company_id: chosen.id, last_push_error: null },
      { where: { id: fresh.map((o) => o.id) }, transaction },
    );
    // The jobs commit with the `queued` state or not at all: a crash after the commit loses no push. No unique job
    // key: the order row, locked above, is what makes a push happen once (an order queued, being sent or sent is
    // skipped). A key per order would also find the finished job of an earlier push that failed for good and add
    // nothing, leaving a re-pushed order queued for ever.
    const items = fresh.map((o) => ({ orderId: o.id, accountId: o.account_id, ...data }));
    await core.queue.enqueueIn(transaction, PUSH_JOB, items, { priority: 'URGENT' });
    return { toQueue: fresh, company: chosen };
  });
  crashPoint(core.config, 'exit-after-push-commit');
  const queued = toQueue.length;
  core.logger.info({ account_id: company.account_id, shipping_company_id: company.id, queued }, 'order pushes queued');
  return { queued, skipped: keys.length - queued, company: company.name };
}

/**
 * The companies a push of these orders may go to (the panel's choice): the active ones of the orders' account, by
 * name. Orders outside the actor's scope are not found (nothing listed); with no order named, the actor's account.
 */
export async function pushChoices(core: Core, shipping: ShippingService, actor: Actor, ids: number[]) {
  authorize(actor, 'update', 'order');
  const named = ids.filter(isRowId);
  const orders = named.length
    ? await core.models.Order.findAll({
        where: { id: named, ...accountScope(actor) },
        attributes: ['account_id'],
      })
    : [];
  const accounts = [...new Set(orders.map((o) => o.account_id))];
  const accountId = named.length ? (accounts.length === 1 ? accounts[0] : null) : actor.accountId;
  return { companies: accountId ? await shipping.activeCompanies(accountId) : [] };
}

/**
 * The push job's work for one order: claim it (`sending`), send it (carrier.adapter.ts), record the answer. A
 * tracking number moves the order to `pushed`; anything else is kept as last_push_error and thrown so the job is
 * retried with back-off. Safe to run twice: a sent order is never sent again, and a crash between sending and
 * recording resends with the same idempotency key. An order of total 0 is marked failed with the reason, not sent.
 */
export async function pushOne(core: Core, orderId: number, requestedBy: string, userId: number | null) {
  const { sequelize } = core.db;
  const { Order, OrderProduct, ShippingCompany } = core.models;
  const claimed = await sequelize.transaction(async (transaction) => {
    const o = await Order.findByPk(orderId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!o || o.status !== 'new' || o.push_state === 'sent' || !o.shipping_company_id) return null;
    if (!(Number(o.total) > 0)) {
      // queued before the rule, or its total changed since: failed for good, never sent
      await o.update({ push_state: 'failed', last_push_error: zeroTotalMessage(o.reference) }, { transaction });
      return 'refused' as const;
    }
    await o.update({ push_state: 'sending', push_attempts: o.push_attempts + 1 }, { transaction });
    return o;
  });
  if (!claimed) return 'skipped';
  if (claimed === 'refused') return 'refused';
  const company = await ShippingCompany.findByPk(claimed.shipping_company_id!);
  const products = await OrderProduct.findAll({ where: { order_id: orderId }, order: [['position', 'ASC']] });
  const result = await sendOrder(company, claimed, products, core.config.shippingAllowPrivateUrls);
  await sequelize.transaction(async (transaction) => {
    const o = (await Order.findByPk(orderId, { transaction, lock: transaction.LOCK.UPDATE }))!;
    if ('failure' in result) {
      await o.update({ push_state: 'failed', last_push_error: result.failure.slice(0, 1000) }, { transaction });
      return;
    }
    const sent = { push_state: 'sent', tracking_number: result.tracking, pushed_at: new Date(), last_push_error: null };
    await o.update({ status: 'pushed', ...sent }, { transaction });
    const move = { account_id: o.account_id, id: o.id, reference: o.reference, old: 'new', status: 'pushed' };
    await insertHistory(sequelize, transaction, 'order', [move], { name: requestedBy, userId });
    const moves = [{ orderId: o.id, accountId: o.account_id, from: 'new' as const, to: 'pushed' as const }];
    await ordersMoved.emit(core, { transaction, moves, by: { name: requestedBy, userId } });
  });
  core.metrics.carrierPushes.inc({ outcome: 'failure' in result ? 'failed' : 'sent' });
  if ('failure' in result) throw new Error(result.failure);
  return 'sent';
}
