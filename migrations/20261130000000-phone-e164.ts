import { QueryTypes, type Sequelize } from 'sequelize';
import { defaultCountryOf } from '../src/config.js';
import type { Migration } from '../src/db/migrator.js';
import { normalizePhone } from '../src/phone.js';

/**
 * Phones in E.164 (issue 21, docs/decisions.md "Phones"). Each account gets the country its national numbers are read
 * in (`phone_country`: DEFAULT_COUNTRY, MA unless set; new accounts get it from the application, so the column keeps
 * no default), and the `phone_normalized` of every lead and order is computed again with libphonenumber, in batches
 * of BATCH rows by id, each committed on its own: the table is never locked whole, and a run cut short starts again
 * from the beginning and only rewrites rows whose form differs. A stored phone that is not a possible number keeps its
 * old digits-only form (it was accepted then; it is refused only when written again).
 */
const BATCH = 5000;

/** Exported for the test that meets rows in the old form (test/integration/phone-e164.test.ts). */
export async function renormalize(db: Sequelize, table: 'leads' | 'orders') {
  for (let after = 0; ;) {
    const rows = await db.query<{ id: string; phone: string; country: string }>(
      `SELECT t.id, t.phone, a.phone_country AS country FROM ${table} t JOIN accounts a ON a.id = t.account_id
        WHERE t.id > $1 ORDER BY t.id LIMIT ${BATCH}`,
      { bind: [after], type: QueryTypes.SELECT },
    );
    if (!rows.length) return;
    const ids: string[] = [];
    const forms: string[] = [];
    for (const r of rows) {
      const n = normalizePhone(r.phone, r.country);
      if (!n) continue;
      ids.push(r.id);
      forms.push(n.phone_normalized);
    }
    await db.query(
      `UPDATE ${table} t SET phone_normalized = v.pn FROM unnest($1::bigint[], $2::text[]) AS v(id, pn)
        WHERE t.id = v.id AND t.phone_normalized IS DISTINCT FROM v.pn`,
      { bind: [ids, forms] },
    );
    after = Number(rows[rows.length - 1].id);
  }
}

export const up: Migration = async ({ context: db }) => {
  const country = defaultCountryOf();
  await db.query(`ALTER TABLE accounts ADD COLUMN phone_country char(2) NOT NULL DEFAULT '${country}'`);
  await db.query('ALTER TABLE accounts ALTER COLUMN phone_country DROP DEFAULT');
  await renormalize(db, 'leads');
  await renormalize(db, 'orders');
};

/** Back to the digits-only form (a leading + kept) that the code before this migration computes. */
export const down: Migration = async ({ context: db }) => {
  for (const table of ['leads', 'orders'])
    await db.query(
      `UPDATE ${table} SET phone_normalized =
         CASE WHEN btrim(phone) LIKE '+%' THEN '+' ELSE '' END || regexp_replace(phone, '\\D', '', 'g')`,
    );
  await db.query('ALTER TABLE accounts DROP COLUMN phone_country');
};
