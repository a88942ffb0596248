import pg from 'pg';
import type { Sequelize } from 'sequelize';
import type { Actor } from '../actor.js';
import { inlineParams } from '../db/index.js';
import { accountScope } from '../policy.js';
import { likeContains, searchClause, selectPage, type ListStatement } from '../query.js';
import { FORMULA_CHARS } from '../transfers/spreadsheet.js';
import type { LeadFilters } from './lead.schemas.js';

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
 * the filters, or every account). Shared by the list and the export, so both apply the same rules.
 */
function leadFilter(actor: Actor, f: LeadFilters): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const conds: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  const scope = accountScope(actor, f.account_id);
  if (scope.account_id) conds.push(`l.account_id = ${p(scope.account_id)}`);
  const kw = f.keyWord?.trim();
  if (kw) conds.push(searchClause('l', f.search_by ?? 'reference', kw, p));
  const search = f.search?.trim();
  if (search) {
    const digits = search.replace(/\D/g, '');
    const like = p(likeContains(search));
    conds.push(
      `(l.reference = ${p(search.toUpperCase())} OR l.full_name ILIKE ${like} OR l.city ILIKE ${like}` +
        (digits.length >= 3 ? ` OR l.phone_normalized LIKE ${p(likeContains(digits))})` : ')'),
    );
  }
  if (f.status) conds.push(`l.status = ${p(f.status)}`);
  if (f.city_id) conds.push(`l.city_id = ${p(f.city_id)}`);
  if (f.created_from) conds.push(`l.created_at >= ${p(new Date(f.created_from))}`);
  if (f.created_to) conds.push(`l.created_at <= ${p(new Date(f.created_to))}`);
  return { where: conds.length ? conds.join(' AND ') : 'true', params };
}

/** One page of the lead list, newest first, and the count of every lead it matches. */
export function listLeads(sequelize: Sequelize, actor: Actor, f: LeadFilters, page: number, perPage: number) {
  const statement: ListStatement = {
    ...leadFilter(actor, f),
    columns: 'l.id, l.account_id, l.reference, l.full_name, l.phone, l.city, l.status, l.created_at',
    from: 'leads l',
    orderBy: 'l.created_at DESC, l.id DESC',
  };
  return selectPage<LeadListRow>(sequelize, statement, page, perPage);
}

export const EXPORT_COLUMNS = [
  'reference',
  'status',
  'phone',
  'full_name',
  'city',
  'area',
  'address',
  'sku',
  'quantity',
  'price',
  'products',
  'total',
  'data',
  'action_date',
  'created_at',
];

/**
 * escapeCell in SQL: a cell a spreadsheet would run as a formula gets a leading apostrophe (first code point compared,
 * no regex).
 */
const FORMULA_CODES = [...FORMULA_CHARS].map((c) => c.codePointAt(0)).join(', ');
const esc = (x: string) => `CASE WHEN ascii(${x}) IN (${FORMULA_CODES}) THEN '''' || ${x} ELSE ${x} END`;
const iso = (x: string) => `to_char(${x} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const EXPORT_CELLS = [
  esc('l.reference'),
  'l.status',
  esc('l.phone'),
  esc('l.full_name'),
  esc('l.city'),
  esc('l.area'),
  esc('l.address'),
  esc('p.sku'),
  'p.quantity',
  'trim_scale(p.price)',
  esc('p.products'),
  'trim_scale(l.total)',
  `CASE WHEN jsonb_array_length(l.data) > 0 THEN ${esc('l.data::text')} ELSE '' END`,
  iso('l.action_date'),
  iso('l.created_at'),
];

/** The part of an export's rows by created_at: all of them, those after a moment, or those up to it. */
export type ExportSlice = { after: string } | { upTo: string } | 'all';

/**
 * The export's statements over the leads the list would show with these filters. `middle` finds the middle of their
 * created_at span (to format two halves at once); `rows` is the one SELECT of a slice, a row per lead, newest first,
 * every cell formatted and escaped, named as EXPORT_COLUMNS, with its parameters inlined (COPY takes no parameters).
 * The first product goes in sku/quantity/price (so the file re-imports), all of them in `products`.
 */
export function leadExport(actor: Actor, f: LeadFilters) {
  const { where, params } = leadFilter(actor, f);
  const slice = (s: ExportSlice) =>
    s === 'all'
      ? where
      : 'after' in s
        ? `(${where}) AND l.created_at > ${pg.escapeLiteral(s.after)}`
        : `(${where}) AND l.created_at <= ${pg.escapeLiteral(s.upTo)}`;
  return {
    middle: {
      sql: `SELECT (min(l.created_at) + (max(l.created_at) - min(l.created_at)) / 2)::text AS middle
              FROM leads l WHERE ${where}`,
      params,
    },
    rows: (s: ExportSlice) =>
      inlineParams(
        `SELECT ${EXPORT_CELLS.map((c, i) => `${c} AS ${EXPORT_COLUMNS[i]}`).join(', ')}
           FROM leads l LEFT JOIN LATERAL (
             SELECT (array_agg(lp.sku ORDER BY lp.position))[1] AS sku,
                    (array_agg(lp.quantity ORDER BY lp.position))[1] AS quantity,
                    (array_agg(lp.price ORDER BY lp.position))[1] AS price,
                    string_agg(lp.sku || ' x' || lp.quantity || ' @ ' || trim_scale(lp.price), '; '
                      ORDER BY lp.position) AS products
               FROM lead_products lp WHERE lp.lead_id = l.id) p ON true
          WHERE ${slice(s)} ORDER BY l.created_at DESC, l.id DESC`,
        params,
      ),
  };
}
