import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ANALYZE_WAKE_ROWS, requestAnalyze } from '../db/table-statistics.js';
import { ValidationError } from '../errors.js';
import { insertHistory } from '../histories/history.repository.js';
import { createBodySchema } from '../leads/lead.schemas.js';
import type { Created, LeadService, PreparedLead } from '../leads/lead.service.js';
import type { Page } from '../pagination.js';
import { accountScope, authorize, targetAccount } from '../policy.js';
import { noKey, runOnce, type IdempotencyOption, type KeyGuard } from '../idempotency/idempotency.service.js';
import { HISTORY_ORDER, LINE_ORDER, historyView, lineView } from '../record-views.js';
import { findInScope, type RowKey } from '../query.js';
import { newReferences } from '../references.js';
import type { ShippingService } from '../shipping/shipping.service.js';
import { validate } from '../validation.js';
import { push, pushChoices, pushOne } from './order-push.js';
import { applyCarrierUpdates, deleteMany, updateStatuses } from './order-writes.js';
import type { CallbackSignature } from '../shipping/callback-replay.js';
import { ordersCreated } from './order.events.js';
import { insertOrders, listOrders } from './order.repository.js';
import { phoneCountryOf } from '../accounts/phone-country.js';
import { orderItemSchema, orderListQuerySchema, type OrderFilters } from './order.schemas.js';

export { PUSH_JOB, type PushResult } from './order-push.js';

/** REST bulk create: same item rules as leads (validated by the lead service), atomic and set-based. */
async function createMany(
  core: Core,
  leads: LeadService,
  actor: Actor,
  body: unknown,
  guard: KeyGuard<Created> = noKey,
): Promise<Created> {
  authorize(actor, 'create', 'order');
  const { orders } = validate<{ orders: unknown[] }>(createBodySchema('orders'), body);
  const { prepared, errors } = await leads.prepareLeads(actor, orders, 'orders', undefined, {
    itemSchema: orderItemSchema,
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const accountId = actor.accountId as number;
  const references = newReferences('OR', prepared.length);
  const userId = actorUserId(actor);
  const { sequelize } = core.db;
  return sequelize.transaction(async (transaction) => {
    // the key first: a second request with it waits here, then replays (src/idempotency)
    await guard.take(transaction);
    const items = prepared as PreparedLead[];
    const { idByRef, canceled } = await insertOrders(sequelize, transaction, { accountId, userId, references, items });
    const moves = references.map((r) => ({ account_id: accountId, id: idByRef.get(r)!, reference: r }));
    const by = { name: actor.name, userId };
    // the warehouse each order names (stock knows the account's codes and refuses an unknown one under its path)
    const warehouses = orders.map((o) => (o as { warehouse?: unknown }).warehouse as string | undefined);
    await ordersCreated.emit(core, { transaction, orderIds: moves.map((m) => m.id), by, warehouses });
    const created = (blocked: boolean) =>
      moves.filter((m) => canceled.has(m.reference) === blocked).map((m) => ({ ...m, old: null, status: 'new' }));
    await insertHistory(sequelize, transaction, 'order', created(false), actor);
    // created canceled by a block: the system's doing, as for a lead
    const system = { name: 'system', userId: null };
    await insertHistory(
      sequelize,
      transaction,
      'order',
      created(true).map((m) => ({ ...m, status: 'canceled' })),
      system,
    );
    if (items.length >= ANALYZE_WAKE_ROWS) await requestAnalyze(sequelize, transaction);
    await guard.keep(transaction, { references });
    return { references };
  });
}

/** One page of orders, newest first; search_by adds tracking_number to the lead list's fields. */
async function list(core: Core, actor: Actor, query: unknown): Promise<Page<Record<string, unknown>>> {
  authorize(actor, 'viewAny', 'order');
  const q = validate<OrderFilters>(orderListQuerySchema, query, { allowUnknown: true, stripUnknown: true });
  const scope = accountScope(actor, q.account_id).account_id;
  if (q.search_by === 'phone') q.phone_country = await phoneCountryOf(core, scope);
  const { rows, total, totalExact } = await listOrders(core.db.sequelize, scope, q, q.per_page);
  return {
    data: rows.map((r) => ({ ...r, total: Number(r.total), created_at: new Date(r.created_at).toISOString() })),
    total,
    totalExact,
    page: q.page,
    perPage: q.per_page,
  };
}

/** The full order: contact fields, products, shipping state (with the last push error) and history. */
async function show(core: Core, actor: Actor, key: { reference: string } | { id: number }) {
  authorize(actor, 'view', 'order');
  const { Order, OrderProduct, OrderHistory, ShippingCompany } = core.models;
  const o = await findInScope(Order, actor, key);
  const [products, history, company] = await Promise.all([
    OrderProduct.findAll({ where: { order_id: o.id }, order: LINE_ORDER }),
    OrderHistory.findAll({ where: { order_id: o.id }, order: HISTORY_ORDER }),
    o.shipping_company_id ? ShippingCompany.findByPk(o.shipping_company_id) : null,
  ]);
  return {
    id: o.id,
    account_id: o.account_id,
    reference: o.reference,
    lead_reference: o.lead_reference,
    full_name: o.full_name,
    phone: o.phone,
    city: o.city,
    area: o.area,
    address: o.address,
    data: o.data,
    status: o.status,
    total: Number(o.total),
    products: products.map(lineView),
    shipping_company: company?.code ?? null,
    tracking_number: o.tracking_number,
    pushed_at: o.pushed_at?.toISOString() ?? null,
    push_state: o.push_state,
    push_attempts: o.push_attempts,
    last_push_error: o.last_push_error,
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
    history: history.map((h) => ({ order_reference: h.order_reference, ...historyView(h) })),
  };
}

export function createOrderService(core: Core, deps: { leads: LeadService; shipping: ShippingService }) {
  return {
    createMany: (actor: Actor, body: unknown) => createMany(core, deps.leads, actor, body),
    /** createMany at most once per Idempotency-Key (docs/api.md "Idempotent requests"). */
    createManyOnce: async (actor: Actor, body: unknown, once: IdempotencyOption<Created>) => {
      authorize(actor, 'create', 'order');
      const write = (guard: KeyGuard<Created>) => createMany(core, deps.leads, actor, body, guard);
      return runOnce(core.db.sequelize, targetAccount(actor), once, write);
    },
    list: (actor: Actor, query: unknown) => list(core, actor, query),
    show: (actor: Actor, key: { reference: string } | { id: number }) => show(core, actor, key),
    updateStatuses: (actor: Actor, body: unknown, by: RowKey = 'references') => updateStatuses(core, actor, body, by),
    deleteMany: (actor: Actor, body: unknown, by: RowKey = 'references') => deleteMany(core, actor, body, by),
    push: (actor: Actor, body: unknown, by: RowKey = 'references') => push(core, deps.shipping, actor, body, by),
    pushChoices: (actor: Actor, ids: number[]) => pushChoices(core, deps.shipping, actor, ids),
    pushOne: (orderId: number, requestedBy: string, userId: number | null) =>
      pushOne(core, orderId, requestedBy, userId),
    applyCarrierUpdates: (companyId: number, body: unknown, seen?: CallbackSignature) =>
      applyCarrierUpdates(core, companyId, body, seen),
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
