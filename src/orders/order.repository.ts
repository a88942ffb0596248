import type { Sequelize, Transaction } from 'sequelize';
import type { PreparedLead } from '../leads/lead.check.js';
import { newestFirst, select, selectPage, type ListStatement, type LockSpec } from '../query.js';
import { searchClause } from '../search-clause.js';
import type { OrderStatus } from './order.model.js';
import type { OrderFilters } from './order.schemas.js';

/** An order as the writes see it once locked. */
export interface LockedOrder {
  id: number;
  account_id: number;
  reference: string;
  status: OrderStatus;
  tracking_number: string | null;
  push_state: string | null;
  /** numeric, as the driver answers it */
  total: string | number;
}
const LOCKED_COLUMNS = 'id, account_id, reference, status, tracking_number, push_state, total';
/** Orders as their bulk writes lock them (lockByKeys). */
export const ORDER_LOCK: LockSpec<LockedOrder> = { table: 'orders', columns: LOCKED_COLUMNS };

/** The orders of one shipping company named by reference or tracking number (a carrier's callback), locked. */
export function lockCompanyOrders(
  sequelize: Sequelize,
  transaction: Transaction,
  company: { id: number; account_id: number },
  updates: { reference?: string; tracking_number?: string }[],
): Promise<LockedOrder[]> {
  return select<LockedOrder>(
    sequelize,
    `SELECT ${LOCKED_COLUMNS} FROM orders
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
}

/** Sets statuses (and tracking numbers, where given) of many orders in one statement. */
export async function setOrderStatuses(
  sequelize: Sequelize,
  transaction: Transaction,
  moves: { id: number; status: string; tracking_number?: string | null }[],
) {
  await sequelize.query(
    `UPDATE orders o
        SET status = v.status, tracking_number = COALESCE(v.tracking, o.tracking_number), updated_at = now()
       FROM unnest($1::bigint[], $2::text[], $3::text[]) AS v(id, status, tracking) WHERE o.id = v.id`,
    {
      bind: [moves.map((m) => m.id), moves.map((m) => m.status), moves.map((m) => m.tracking_number ?? null)],
      transaction,
    },
  );
}

/** Deletes orders by id; their products and history go with them (ON DELETE CASCADE). */
export async function deleteOrders(sequelize: Sequelize, transaction: Transaction, ids: number[]) {
  await sequelize.query('DELETE FROM orders WHERE id = ANY($1::bigint[])', { bind: [ids], transaction });
}

/** One page of orders in `accountId` (none: every account), newest first, and its total (see selectPage). */
export function listOrders(sequelize: Sequelize, accountId: number | undefined, q: OrderFilters, perPage: number) {
  const params: unknown[] = [];
  const conds: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  if (accountId) conds.push(`o.account_id = ${p(accountId)}`);
  if (q.status) conds.push(`o.status = ${p(q.status)}`);
  const kw = q.keyWord?.trim();
  if (kw) conds.push(searchClause('o', q.search_by ?? 'reference', kw, p, q.phone_country));
  const statement: ListStatement = {
    exact: kw ? null : { list: 'orders', accountId, status: q.status },
    columns: `o.id, o.account_id, o.reference, o.lead_reference, o.full_name, o.phone, o.city, o.status, o.total,
              o.tracking_number, o.last_push_error, o.created_at`,
    from: 'orders o',
    ...newestFirst(accountId, 'o.created_at', 'o.id'),
    where: conds.length ? conds.join(' AND ') : 'true',
    params,
  };
  return selectPage<Record<string, unknown> & { created_at: Date; total: string }>(
    sequelize,
    statement,
    q.page,
    perPage,
  );
}

/**
 * Inserts orders made from checked lead items (REST bulk create) and their product lines; answers each reference's
 * id. Orders made from confirmed leads are copied from the leads' rows instead (from-leads.ts).
 */
export async function insertOrders(
  sequelize: Sequelize,
  transaction: Transaction,
  o: { accountId: number; userId: number | null; references: string[]; items: PreparedLead[] },
): Promise<{ idByRef: Map<string, number>; canceled: Set<string> }> {
  const col = <K extends keyof PreparedLead>(k: K) => o.items.map((l) => l[k] ?? null);
  // an order to a phone the account blocked is created canceled, never pushable (docs/decisions.md, "Blocklist")
  const rows = await select<{ id: number; reference: string; status: string }>(
    sequelize,
    `INSERT INTO orders (account_id, reference, phone, phone_normalized, full_name, city, area, address,
                         data, total, status, created_by_user_id)
     SELECT $1, v.ref, v.phone, v.pn, v.name, v.city, v.area, v.address, v.data::jsonb, v.total,
            CASE WHEN EXISTS (SELECT 1 FROM blocked_phones b WHERE b.account_id = $1 AND b.phone_normalized = v.pn)
                 THEN 'canceled' ELSE 'new' END, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                   $10::text[], $11::numeric[]) AS v(ref, phone, pn, name, city, area, address, data, total)
     RETURNING id, reference, status`,
    [
      o.accountId,
      o.userId,
      o.references,
      col('phone'),
      col('phone_normalized'),
      col('full_name'),
      col('city'),
      col('area'),
      col('address'),
      o.items.map((l) => JSON.stringify(l.data)),
      col('total'),
    ],
    transaction,
  );
  const idByRef = new Map(rows.map((r) => [r.reference, r.id]));
  const lines = o.items.flatMap((l, i) =>
    l.products.map((p, j) => [idByRef.get(o.references[i])!, p.product_id, p.sku, p.name, p.quantity, p.price, j]),
  );
  const column = (n: number) => lines.map((line) => line[n]);
  await sequelize.query(
    `INSERT INTO order_products (account_id, order_id, product_id, sku, name, quantity, price, position)
     SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::int[], $7::numeric[],
                              $8::smallint[])`,
    { bind: [o.accountId, ...[0, 1, 2, 3, 4, 5, 6].map(column)], transaction },
  );
  return { idByRef, canceled: new Set(rows.filter((r) => r.status === 'canceled').map((r) => r.reference)) };
}
