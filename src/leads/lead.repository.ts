import type { Sequelize, Transaction } from 'sequelize';
import type { Actor } from '../actor.js';
import { accountScope } from '../policy.js';
import { newestFirst, select, selectPage, type ListStatement, type LockSpec } from '../query.js';
import { likeContains } from '../like-pattern.js';
import { searchClause } from '../search-clause.js';
import type { Catalogue, CatalogueProduct } from './lead.check.js';
import type { LeadFilters } from './lead.schemas.js';
import { phoneSearchDigits } from '../phone.js';

export interface LeadListRow {
  id: number;
  account_id: number;
  reference: string;
  full_name: string;
  phone: string;
  city: string | null;
  status: string;
  created_at: Date;
}

/**
 * The lead list's filters as SQL over `leads l`, in the actor's scope (its account; for an admin the account chosen in
 * the filters, or every account), and the order the list reads them in (newestFirst). Shared by the list and the
 * export (lead-export.repository.ts), so both apply the same rules.
 */
export function leadFilter(
  actor: Actor,
  f: LeadFilters,
): Pick<ListStatement, 'where' | 'params' | 'exact' | 'key' | 'sortedBy'> {
  const params: unknown[] = [];
  const conds: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  const scope = accountScope(actor, f.account_id);
  if (scope.account_id) conds.push(`l.account_id = ${p(scope.account_id)}`);
  const kw = f.keyWord?.trim();
  if (kw) conds.push(searchClause('l', f.search_by ?? 'reference', kw, p, f.phone_country));
  const search = f.search?.trim();
  if (search) {
    const digits = phoneSearchDigits(search, f.phone_country);
    const like = p(likeContains(search));
    conds.push(
      `(l.reference = ${p(search.toUpperCase())} OR l.full_name ILIKE ${like} OR l.city ILIKE ${like}` +
        (digits.length >= 3 ? ` OR l.phone_normalized LIKE ${p(likeContains(digits))})` : ')'),
    );
  }
  if (f.status) conds.push(`l.status = ${p(f.status)}`);
  if (f.city_id) conds.push(`l.city_id = ${p(f.city_id)}`);
  // served by leads_source_created_idx (source_id, created_at DESC, id DESC), in the list's order
  if (f.source_id) conds.push(`l.source_id = ${p(f.source_id)}`);
  if (f.created_from) conds.push(`l.created_at >= ${p(new Date(f.created_from))}`);
  if (f.created_to) conds.push(`l.created_at <= ${p(new Date(f.created_to))}`);
  // only the account and the status: the exact total is kept in row_counts
  const exact = conds.length === (scope.account_id ? 1 : 0) + (f.status ? 1 : 0);
  return {
    where: conds.length ? conds.join(' AND ') : 'true',
    params,
    exact: exact ? { list: 'leads', accountId: scope.account_id, status: f.status } : null,
    ...newestFirst(scope.account_id, 'l.created_at', 'l.id'),
  };
}

/** One page of the lead list, newest first, and its total (see selectPage). */
export function listLeads(sequelize: Sequelize, actor: Actor, f: LeadFilters, page: number, perPage: number) {
  const statement: ListStatement = {
    ...leadFilter(actor, f),
    columns: 'l.id, l.account_id, l.reference, l.full_name, l.phone, l.city, l.status, l.created_at',
    from: 'leads l',
  };
  return selectPage<LeadListRow>(sequelize, statement, page, perPage);
}

/**
 * The account's active products by sku (those named, or all of them), with the hints skuError names: the products,
 * of any case and active or not, of each named sku it lacks (every product when none is named). The hints are read
 * only when a named sku is missing, so a request naming active skus costs one indexed query as before.
 */
export async function activeProducts(sequelize: Sequelize, accountId: number, skus?: string[]): Promise<Catalogue> {
  if (skus && skus.length === 0) return new Map();
  type Row = CatalogueProduct & { active: boolean };
  const columns = 'id, sku, name, price::float8 AS price, active';
  const rows = skus
    ? await select<Row>(sequelize, `SELECT ${columns} FROM products WHERE account_id = $1 AND sku = ANY($2::text[])`, [
        accountId,
        skus,
      ])
    : await select<Row>(sequelize, `SELECT ${columns} FROM products WHERE account_id = $1`, [accountId]);
  const catalogue: Catalogue = new Map();
  for (const { active, ...p } of rows) if (active) catalogue.set(p.sku, p);
  const missing = skus?.filter((s) => !catalogue.has(s)) ?? [];
  const near = missing.length
    ? await select<Row>(
        sequelize,
        `SELECT sku, active FROM products WHERE account_id = $1 AND lower(sku) = ANY($2::text[])`,
        [accountId, missing.map((s) => s.toLowerCase())],
      )
    : skus
      ? []
      : rows;
  catalogue.hints = new Map();
  for (const { sku, active } of near) {
    const key = sku.toLowerCase();
    catalogue.hints.set(key, [...(catalogue.hints.get(key) ?? []), { sku, active }]);
  }
  return catalogue;
}

export interface LockedLead {
  id: number;
  reference: string;
  account_id: number;
  status: string;
}

/** Leads as their bulk writes lock them (lockByKeys). */
export const LEAD_LOCK: LockSpec<LockedLead> = { table: 'leads', columns: 'id, reference, account_id, status' };

/** One lead's status move; `action_date` null keeps the lead's date. */
export interface LeadStatusChange {
  id: number;
  status: string;
  action_date: Date | null;
}

/**
 * Sets statuses (and action dates) of many leads in one statement. `personId`, the user acting (a token's owner; null
 * for `system`), records the lead's first touch when this is the first change of its status by a person: the time is
 * the transaction's, as its history entry's `changed_at` (speed to lead, docs/decisions.md).
 */
export async function setLeadStatuses(
  sequelize: Sequelize,
  transaction: Transaction,
  changes: LeadStatusChange[],
  personId: number | null,
) {
  const touched = '$4::int IS NOT NULL AND l.first_touch_at IS NULL AND v.status <> l.status';
  await sequelize.query(
    `UPDATE leads l SET status = v.status, action_date = COALESCE(v.action_date, l.action_date), updated_at = now(),
            first_touch_at = CASE WHEN ${touched} THEN now() ELSE l.first_touch_at END,
            first_touch_user_id = CASE WHEN ${touched} THEN $4::int ELSE l.first_touch_user_id END
       FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, status, action_date) WHERE l.id = v.id`,
    {
      bind: [changes.map((c) => c.id), changes.map((c) => c.status), changes.map((c) => c.action_date), personId],
      transaction,
    },
  );
}

/** Deletes leads by id; their products and history go with them (ON DELETE CASCADE). */
export async function deleteLeads(sequelize: Sequelize, transaction: Transaction, ids: number[]) {
  await sequelize.query('DELETE FROM leads WHERE id = ANY($1::bigint[])', { bind: [ids], transaction });
}

/** Whether another lead of the account has this phone (the dashboard's "unique in the account" rule). */
export async function phoneTaken(sequelize: Sequelize, accountId: number, phoneNormalized: string): Promise<boolean> {
  const rows = await select(sequelize, 'SELECT 1 FROM leads WHERE account_id = $1 AND phone_normalized = $2 LIMIT 1', [
    accountId,
    phoneNormalized,
  ]);
  return rows.length > 0;
}

/** The lead's current status, locked for the rest of the transaction. */
export async function lockLeadStatus(sequelize: Sequelize, transaction: Transaction, id: number): Promise<string> {
  const [row] = await select<{ status: string }>(
    sequelize,
    'SELECT status FROM leads WHERE id = $1 FOR UPDATE',
    [id],
    transaction,
  );
  return row.status;
}

/**
 * The reasons of the leads among `ids` whose phone their account has blocked (lead id → reason), in the caller's
 * transaction: what confirming and a phone change check (docs/decisions.md, "Blocklist").
 */
export async function blockedLeads(
  sequelize: Sequelize,
  transaction: Transaction,
  ids: number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await select<{ id: string | number; reason: string }>(
    sequelize,
    `SELECT l.id, b.reason FROM leads l
       JOIN blocked_phones b ON b.account_id = l.account_id AND b.phone_normalized = l.phone_normalized
      WHERE l.id = ANY($1::bigint[])`,
    [ids],
    transaction,
  );
  return new Map(rows.map((r) => [Number(r.id), r.reason]));
}
