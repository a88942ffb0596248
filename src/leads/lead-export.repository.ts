import pg from 'pg';
import type { Actor } from '../actor.js';
import { inlineParams } from '../db/index.js';
import { FORMULA_CHARS } from '../formula-cells.js';
import { leadFilter } from './lead.repository.js';
import type { LeadFilters } from './lead.schemas.js';

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
  'time_zone',
];

/**
 * escapeCell in SQL: a cell a spreadsheet would run as a formula gets a leading apostrophe (first code point compared,
 * no regex).
 */
const FORMULA_CODES = [...FORMULA_CHARS].map((c) => c.codePointAt(0)).join(', ');
const esc = (x: string) => `CASE WHEN ascii(${x}) IN (${FORMULA_CODES}) THEN '''' || ${x} ELSE ${x} END`;
/**
 * A time as ISO 8601 in its lead's account zone with that moment's offset (`2026-12-01T14:30:00+01:00`;
 * docs/decisions.md "Time zones"): the wall time a spreadsheet shows, and still one instant.
 */
const zonedIso = (x: string) => {
  const minutes = `(extract(epoch FROM (${x} AT TIME ZONE za.time_zone) - (${x} AT TIME ZONE 'UTC')) / 60)::int`;
  const offset = `CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || lpad((abs(${minutes}) / 60)::text, 2, '0')
                  || ':' || lpad((abs(${minutes}) % 60)::text, 2, '0')`;
  return `to_char(${x} AT TIME ZONE za.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') || ${offset}`;
};
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
  zonedIso('l.action_date'),
  zonedIso('l.created_at'),
  'za.time_zone',
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
           FROM leads l JOIN accounts za ON za.id = l.account_id LEFT JOIN LATERAL (
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
