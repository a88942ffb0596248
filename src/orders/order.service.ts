import { QueryTypes, type Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ValidationError, type FieldErrors } from '../errors.js';
import { insertHistory, type StatusMove } from '../histories/history.repository.js';
import { createBodySchema, deleteBodySchema, deleteIdsSchema } from '../leads/lead.schemas.js';
import type { LeadService, PreparedLead } from '../leads/lead.service.js';
import { offsetOf, type Page } from '../pagination.js';
import { accountScope, authorize } from '../policy.js';
import { findInScope, isRowId, searchClause } from '../query.js';
import { newReferences } from '../references.js';
import type { ShippingService } from '../shipping/shipping.service.js';
import { CarrierAddressError, postToCarrier } from '../shipping/carrier-client.js';
import { signBody } from '../shipping/shipping.service.js';
import { addError, validate } from '../validation.js';
import type { OrderStatus } from './order.model.js';
import {
  orderListQuerySchema,
  orderUpdateBodySchema,
  pushBodySchema,
  type CarrierUpdate,
  type OrderFilters,
  type OrderStatusChange,
  type PushInput,
} from './order.schemas.js';
import { canMove, DELETABLE_ORDER_STATUSES } from './order.transitions.js';

export const PUSH_JOB = 'push-order';

/** How a write names its orders: by reference (REST, within the token's account) or by id (the panel's records). */
type OrderKey = 'references' | 'ids';

export interface PushResult {
  queued: number;
  skipped: number;
  /** The name of the shipping company the orders were queued for. */
  company: string;
}

interface Row {
  id: number;
  account_id: number;
  reference: string;
  status: OrderStatus;
  tracking_number: string | null;
  push_state: string | null;
}

export function createOrderService(core: Core, deps: { leads: LeadService; shipping: ShippingService }) {
  const { sequelize } = core.db;
  const { Order, OrderProduct, OrderHistory, ShippingCompany } = core.models;

  function select<T extends object>(sql: string, bind: unknown[], transaction?: Transaction) {
    return sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
  }

  const writeHistory = (transaction: Transaction, moves: StatusMove[], changedBy: string, userId: number | null) =>
    insertHistory(sequelize, transaction, 'order', moves, { name: changedBy, userId });

  /**
   * Locks the named orders in the actor's scope (its account; every account for an admin), by reference (REST) or by
   * id (the panel, where an admin acts on any account's record). Unknown keys become 422 errors at
   * `${path}.${i}${suffix}`; an id outside the id column's range names no row.
   */
  async function lockOrders(
    transaction: Transaction,
    actor: Actor,
    by: OrderKey,
    keys: (string | number)[],
    path: string,
    suffix = '',
  ) {
    const scope = accountScope(actor);
    const column = by === 'references' ? 'reference' : 'id';
    const wanted = by === 'references' ? keys : keys.filter((k) => isRowId(k as number));
    const found = await select<Row>(
      `SELECT id, account_id, reference, status, tracking_number, push_state FROM orders
        WHERE ${column} = ANY($1::${by === 'references' ? 'text' : 'bigint'}[])
          ${scope.account_id ? 'AND account_id = $2' : ''} ORDER BY id FOR UPDATE`,
      scope.account_id ? [wanted, scope.account_id] : [wanted],
      transaction,
    );
    const byKey = new Map(found.map((o) => [String(o[column]), o]));
    const errors: FieldErrors = {};
    keys.forEach((k, i) => {
      if (!byKey.has(String(k)))
        addError(errors, `${path}.${i}${suffix}`, `The selected ${path}.${i}${suffix} is invalid.`);
    });
    return { byKey, errors };
  }

  /** Applies status moves under the transition table; an illegal move is a 422 naming the reference and the move. */
  async function applyMoves(
    transaction: Transaction,
    moves: { row: Row; status: OrderStatus; tracking_number?: string; path: string }[],
    changedBy: string,
    userId: number | null,
  ) {
    const errors: FieldErrors = {};
    for (const m of moves) {
      if (!canMove(m.row.status, m.status))
        addError(errors, m.path, `Order ${m.row.reference} cannot move from ${m.row.status} to ${m.status}.`);
    }
    if (Object.keys(errors).length) throw new ValidationError(errors);
    await sequelize.query(
      `UPDATE orders o
          SET status = v.status, tracking_number = COALESCE(v.tracking, o.tracking_number), updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS v(id, status, tracking) WHERE o.id = v.id`,
      {
        bind: [moves.map((m) => m.row.id), moves.map((m) => m.status), moves.map((m) => m.tracking_number ?? null)],
        transaction,
      },
    );
    await writeHistory(
      transaction,
      moves
        .filter((m) => m.row.status !== m.status)
        .map((m) => ({
          account_id: m.row.account_id,
          id: m.row.id,
          reference: m.row.reference,
          old: m.row.status,
          status: m.status,
        })),
      changedBy,
      userId,
    );
  }

  const findOne = (actor: Actor, key: { reference: string } | { id: number }) => findInScope(Order, actor, key);

  return {
    /** REST bulk create: same item rules as leads (validated by the lead service), atomic and set-based. */
    async createMany(actor: Actor, body: unknown): Promise<{ references: string[] }> {
      authorize(actor, 'create', 'order');
      const { orders } = validate<{ orders: unknown[] }>(createBodySchema('orders'), body);
      const { prepared, errors } = await deps.leads.prepareLeads(actor, orders, 'orders');
      if (Object.keys(errors).length) throw new ValidationError(errors);
      const items = prepared as PreparedLead[];
      const accountId = actor.accountId as number;
      const refs = newReferences('OR', items.length);
      return sequelize.transaction(async (transaction) => {
        const col = <K extends keyof PreparedLead>(k: K) => items.map((l) => l[k] ?? null);
        const rows = await select<{ id: number; reference: string }>(
          `INSERT INTO orders (account_id, reference, phone, phone_normalized, full_name, city, area, address,
            data, total, status, created_by_user_id)
           SELECT $1, v.ref, v.phone, v.pn, v.name, v.city, v.area, v.address, v.data::jsonb, v.total, 'new', $2
             FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
               $10::text[], $11::numeric[])
                  AS v(ref, phone, pn, name, city, area, address, data, total)
           RETURNING id, reference`,
          [
            accountId,
            actorUserId(actor),
            refs,
            col('phone'),
            col('phone_normalized'),
            col('full_name'),
            col('city'),
            col('area'),
            col('address'),
            items.map((l) => JSON.stringify(l.data)),
            col('total'),
          ],
          transaction,
        );
        const idByRef = new Map(rows.map((r) => [r.reference, r.id]));
        const lines = items.flatMap((l, i) =>
          l.products.map((p, j) => ({ order: idByRef.get(refs[i])!, ...p, position: j })),
        );
        await sequelize.query(
          `INSERT INTO order_products (account_id, order_id, product_id, sku, name, quantity, price, position)
           SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::int[], $7::numeric[],
             $8::smallint[])`,
          {
            bind: [
              accountId,
              lines.map((l) => l.order),
              lines.map((l) => l.product_id),
              lines.map((l) => l.sku),
              lines.map((l) => l.name),
              lines.map((l) => l.quantity),
              lines.map((l) => l.price),
              lines.map((l) => l.position),
            ],
            transaction,
          },
        );
        await writeHistory(
          transaction,
          refs.map((r) => ({ account_id: accountId, id: idByRef.get(r)!, reference: r, old: null, status: 'new' })),
          actor.name,
          actorUserId(actor),
        );
        return { references: refs };
      });
    },

    /** One page of orders, newest first; search_by adds tracking_number to the lead list's fields. */
    async list(actor: Actor, query: unknown): Promise<Page<Record<string, unknown>>> {
      authorize(actor, 'viewAny', 'order');
      const q = validate<OrderFilters>(orderListQuerySchema, query, { allowUnknown: true, stripUnknown: true });
      const params: unknown[] = [];
      const conds: string[] = [];
      const p = (v: unknown) => `$${params.push(v)}`;
      const scope = accountScope(actor, q.account_id);
      if (scope.account_id) conds.push(`o.account_id = ${p(scope.account_id)}`);
      if (q.status) conds.push(`o.status = ${p(q.status)}`);
      const kw = q.keyWord?.trim();
      if (kw) {
        conds.push(searchClause('o', q.search_by ?? 'reference', kw, p));
      }
      const where = conds.length ? conds.join(' AND ') : 'true';
      const n = params.length;
      const [rows, [{ total }]] = await Promise.all([
        select<Record<string, unknown> & { created_at: Date; total: string }>(
          `SELECT o.id, o.account_id, o.reference, o.lead_reference, o.full_name, o.phone, o.city, o.status,
            o.total, o.tracking_number,
                  o.last_push_error, o.created_at
             FROM orders o WHERE ${where} ORDER BY o.created_at DESC, o.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, q.per_page, offsetOf(q.page, q.per_page)],
        ),
        select<{ total: number }>(`SELECT count(*)::int AS total FROM orders o WHERE ${where}`, params),
      ]);
      return {
        data: rows.map((r) => ({ ...r, total: Number(r.total), created_at: new Date(r.created_at).toISOString() })),
        total,
        page: q.page,
        perPage: q.per_page,
      };
    },

    /** The full order: contact fields, products, shipping state (with the last push error) and history. */
    async show(actor: Actor, key: { reference: string } | { id: number }) {
      authorize(actor, 'view', 'order');
      const o = await findOne(actor, key);
      const [products, history, company] = await Promise.all([
        OrderProduct.findAll({
          where: { order_id: o.id },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
        }),
        OrderHistory.findAll({
          where: { order_id: o.id },
          order: [
            ['changed_at', 'ASC'],
            ['id', 'ASC'],
          ],
        }),
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
        products: products.map((p) => ({ sku: p.sku, name: p.name, quantity: p.quantity, price: Number(p.price) })),
        shipping_company: company?.code ?? null,
        tracking_number: o.tracking_number,
        pushed_at: o.pushed_at?.toISOString() ?? null,
        push_state: o.push_state,
        push_attempts: o.push_attempts,
        last_push_error: o.last_push_error,
        created_at: o.created_at.toISOString(),
        updated_at: o.updated_at.toISOString(),
        history: history.map((h) => ({
          order_reference: h.order_reference,
          old_status: h.old_status,
          new_status: h.new_status,
          changed_by: h.changed_by,
          changed_at: h.changed_at.toISOString(),
        })),
      };
    },

    /** Bulk status update under the transition table; atomic. By reference (REST) or id (panel). */
    async updateStatuses(actor: Actor, body: unknown, by: OrderKey = 'references'): Promise<{ updated: number }> {
      authorize(actor, 'update', 'order');
      const key = by === 'references' ? 'reference' : 'id';
      const { orders } = validate<{ orders: OrderStatusChange[] }>(orderUpdateBodySchema(key), body);
      return sequelize.transaction(async (transaction) => {
        const keys = orders.map((o) => (by === 'references' ? String(o.reference).toUpperCase() : Number(o.id)));
        const { byKey, errors } = await lockOrders(transaction, actor, by, keys, 'orders', `.${key}`);
        if (new Set(keys).size !== keys.length) addError(errors, 'orders', `The orders field has a duplicate ${key}.`);
        if (Object.keys(errors).length) throw new ValidationError(errors);
        await applyMoves(
          transaction,
          orders.map((o, i) => ({
            row: byKey.get(String(keys[i]))!,
            status: o.status as OrderStatus,
            tracking_number: o.tracking_number,
            path: `orders.${i}.status`,
          })),
          actor.name,
          actorUserId(actor),
        );
        return { updated: orders.length };
      });
    },

    /** Deletes new or canceled orders (with products and history); any other status is protected. */
    async deleteMany(actor: Actor, body: unknown, by: OrderKey = 'references'): Promise<{ deleted: number }> {
      authorize(actor, 'delete', 'order');
      const keys: (string | number)[] =
        by === 'references'
          ? validate<{ references: string[] }>(deleteBodySchema, body).references.map((r) => r.toUpperCase())
          : validate<{ ids: number[] }>(deleteIdsSchema, body).ids;
      return sequelize.transaction(async (transaction) => {
        const { byKey, errors } = await lockOrders(transaction, actor, by, keys, by);
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
        await sequelize.query('DELETE FROM orders WHERE id = ANY($1::bigint[])', { bind: [ids], transaction });
        return { deleted: ids.length };
      });
    },

    /**
     * Queues new orders for the shipping company (URGENT jobs). An order already queued, being sent or sent is not
     * queued again, so a repeated request never makes a second carrier call. By reference with a named company
     * (REST), or by id (panel), where the company, unless named, is the first active one of the orders' account: the
     * orders of one push belong to one account, and go to that account's carrier, whoever asks.
     */
    async push(actor: Actor, body: unknown, by: OrderKey = 'references'): Promise<PushResult> {
      authorize(actor, 'update', 'order');
      const v = validate<PushInput>(pushBodySchema(by), body);
      const keys = by === 'references' ? [...new Set(v.references!.map((r) => r.toUpperCase()))] : [...new Set(v.ids!)];
      const { toQueue, company } = await sequelize.transaction(async (transaction) => {
        const { byKey, errors } = await lockOrders(transaction, actor, by, keys, by);
        keys.forEach((k, i) => {
          const o = byKey.get(String(k));
          if (o && o.status !== 'new')
            addError(errors, `${by}.${i}`, `Order ${o.reference} is ${o.status}; only new orders can be pushed.`);
        });
        const accounts = new Set([...byKey.values()].map((o) => o.account_id));
        if (accounts.size > 1) addError(errors, by, 'Push the orders of one account at a time.');
        if (Object.keys(errors).length) throw new ValidationError(errors);
        const accountId = [...accounts][0];
        const chosen = v.shipping_company
          ? await deps.shipping.findForPush(accountId, v.shipping_company)
          : await deps.shipping.firstActive(accountId);
        const fresh = [...byKey.values()].filter((o) => !['queued', 'sending', 'sent'].includes(o.push_state ?? ''));
        await Order.update(
          { push_state: 'queued', shipping_company_id: chosen.id, last_push_error: null },
          { where: { id: fresh.map((o) => o.id) }, transaction },
        );
        return { toQueue: fresh, company: chosen };
      });
      // No unique job key: the order row, locked above, is what makes a push happen once (an order queued, being sent
      // or sent is skipped). A key per order would also find the finished job of an earlier push that failed for good
      // and add nothing, leaving a re-pushed order queued for ever.
      for (const o of toQueue) {
        await core.queue.enqueue(
          PUSH_JOB,
          { orderId: o.id, requestedBy: actor.name, userId: actorUserId(actor) },
          { priority: 'URGENT' },
        );
      }
      core.logger.info(
        { account_id: company.account_id, shipping_company_id: company.id, queued: toQueue.length },
        'order pushes queued',
      );
      return { queued: toQueue.length, skipped: keys.length - toQueue.length, company: company.name };
    },

    /**
     * The push job's work for one order: a signed JSON POST to the carrier with the order reference as idempotency
     * key. 2xx with a tracking number moves the order to `pushed`; anything else is kept as last_push_error and
     * thrown so the job is retried with back-off. Safe to run twice: a sent order is never sent again, and a crash
     * between sending and recording resends with the same idempotency key.
     */
    async pushOne(orderId: number, requestedBy: string, userId: number | null): Promise<'sent' | 'skipped'> {
      const claimed = await sequelize.transaction(async (transaction) => {
        const o = await Order.findByPk(orderId, { transaction, lock: transaction.LOCK.UPDATE });
        if (!o || o.status !== 'new' || o.push_state === 'sent' || !o.shipping_company_id) return null;
        await o.update({ push_state: 'sending', push_attempts: o.push_attempts + 1 }, { transaction });
        return o;
      });
      if (!claimed) return 'skipped';
      const company = await ShippingCompany.findByPk(claimed.shipping_company_id!);
      const products = await OrderProduct.findAll({ where: { order_id: orderId }, order: [['position', 'ASC']] });
      const payload = JSON.stringify({
        reference: claimed.reference,
        full_name: claimed.full_name,
        phone: claimed.phone,
        city: claimed.city,
        area: claimed.area,
        address: claimed.address,
        total: Number(claimed.total),
        cash_on_delivery: Number(claimed.total),
        data: claimed.data,
        products: products.map((p) => ({ sku: p.sku, name: p.name, quantity: p.quantity, price: Number(p.price) })),
      });
      let tracking: string | null = null;
      let failure: string | null = null;
      try {
        if (!company || !company.active) throw new Error('shipping company missing or inactive');
        const answer = await postToCarrier(
          company.endpoint_url,
          {
            'content-type': 'application/json',
            'x-signature': signBody(company.hmac_secret, payload),
            'x-idempotency-key': claimed.reference,
            ...(company.api_key ? { 'x-api-key': company.api_key } : {}),
          },
          payload,
          company.timeout_ms,
          core.config.shippingAllowPrivateUrls,
        );
        // The answer's body is the carrier's (or whatever the URL points at): it is read for the tracking number only,
        // and never kept in last_push_error, which the tenant reads.
        if (answer.status < 200 || answer.status > 299) throw new Error(`carrier answered HTTP ${answer.status}`);
        const parsed = (() => {
          try {
            return JSON.parse(answer.body) as { tracking_number?: unknown };
          } catch {
            return null;
          }
        })();
        if (typeof parsed?.tracking_number !== 'string' || !parsed.tracking_number)
          throw new Error('carrier answer has no tracking_number');
        tracking = parsed.tracking_number.slice(0, 100);
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        failure =
          e.name === 'TimeoutError'
            ? `carrier did not answer within ${company?.timeout_ms} ms`
            : e instanceof CarrierAddressError ||
                e.message.startsWith('carrier answer') ||
                e.message.startsWith('shipping company')
              ? e.message
              : e.code
                ? `carrier could not be reached (${e.code})`
                : e.message;
        for (const secret of [company?.api_key, company?.hmac_secret])
          if (secret) failure = failure.split(secret).join('[secret]');
      }
      await sequelize.transaction(async (transaction) => {
        const o = (await Order.findByPk(orderId, { transaction, lock: transaction.LOCK.UPDATE }))!;
        if (failure) {
          await o.update({ push_state: 'failed', last_push_error: failure.slice(0, 1000) }, { transaction });
          return;
        }
        await o.update(
          {
            status: 'pushed',
            push_state: 'sent',
            tracking_number: tracking,
            pushed_at: new Date(),
            last_push_error: null,
          },
          { transaction },
        );
        await writeHistory(
          transaction,
          [{ account_id: o.account_id, id: o.id, reference: o.reference, old: 'new', status: 'pushed' }],
          requestedBy,
          userId,
        );
      });
      core.metrics.carrierPushes.inc({ outcome: failure ? 'failed' : 'sent' });
      if (failure) throw new Error(failure);
      return 'sent';
    },

    /**
     * Carrier status callback: moves the company's orders to shipped / delivered / returned, history by the company.
     */
    async applyCarrierUpdates(companyId: number, updates: CarrierUpdate[]): Promise<{ updated: number }> {
      const company = (await ShippingCompany.findByPk(companyId))!;
      return sequelize.transaction(async (transaction) => {
        const rows = await select<Row>(
          `SELECT id, account_id, reference, status, tracking_number, push_state FROM orders
            WHERE account_id = $1 AND shipping_company_id = $2
              AND (reference = ANY($3::text[]) OR tracking_number = ANY($4::text[])) FOR UPDATE`,
          [
            company.account_id,
            company.id,
            updates.map((u) => u.reference?.toUpperCase() ?? ''),
            updates.map((u) => u.tracking_number ?? ''),
          ],
          transaction,
        );
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
        await applyMoves(transaction, moves, company.name, null);
        return { updated: moves.length };
      });
    },
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
