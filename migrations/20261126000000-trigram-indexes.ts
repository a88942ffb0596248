import type { Migration } from '../src/db/migrator.js';

/** The contains-searches of the lead and order lists (search_by phone, full_name, city). */
const SEARCHED = [
  ['leads', 'phone_normalized', 'leads_phone_trgm_idx'],
  ['leads', 'full_name', 'leads_full_name_trgm_idx'],
  ['leads', 'city', 'leads_city_trgm_idx'],
  ['orders', 'phone_normalized', 'orders_phone_trgm_idx'],
  ['orders', 'full_name', 'orders_full_name_trgm_idx'],
  ['orders', 'city', 'orders_city_trgm_idx'],
] as const;

/**
 * The trigram indexes of the lists' contains-searches index the column alone instead of (account_id, column). With the
 * account in the index, every search of a large account walked the account's entry, a posting tree of one item per
 * row, to intersect it with the term's candidates: at 1 M leads in one account, 310 index pages and 4.4 ms for a phone
 * that one lead has, against 30 pages and 0.8 ms without it (PostgreSQL 18; docs/performance.md, "Lists at 1 M rows").
 * The account is checked on the rows the index finds; for a small account in a large table the planner walks the
 * account's own (account_id, created_at) index instead. One GIN entry less per row for every insert, too.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(
    SEARCHED.map(
      ([t, column, name]) => `DROP INDEX ${name}; CREATE INDEX ${name} ON ${t} USING gin (${column} gin_trgm_ops);`,
    ).join('\n'),
  );
};

export const down: Migration = async ({ context: db }) => {
  await db.query(
    SEARCHED.map(
      ([t, column, name]) =>
        `DROP INDEX ${name}; CREATE INDEX ${name} ON ${t} USING gin (account_id, ${column} gin_trgm_ops);`,
    ).join('\n'),
  );
};
