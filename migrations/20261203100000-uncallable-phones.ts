import { QueryTypes, type Sequelize } from 'sequelize';
import type { Migration } from '../src/db/migrator.js';
import { normalizePhone } from '../src/phone.js';

/**
 * Uncallable phones (issue 30, shared/spec/decisions.md "Uncallable phones", docs/decisions.md "Phones"): a phone the
 * spec accepts (7 to 100 characters) that is not a possible number is stored as typed with no E.164 form, so
 * `phone_normalized` of leads and orders becomes nullable (null: no E.164 form; duplicates and search never meet it).
 *
 * Rows that migration 20261130000000 left in the old digits-only form (their phone was not possible) lose that form
 * too, so the column holds E.164 or nothing: only rows whose stored form still equals the old one are read (every
 * other row was rewritten in E.164 by that migration or written since), in batches of BATCH by id, each committed on
 * its own. Their statuses and histories are not touched.
 */
const BATCH = 5000;

/** The digits-only form (a leading + kept) that the code before migration 20261130000000 computed. */
const oldForm = (phone: string) =>
  `CASE WHEN btrim(${phone}) LIKE '+%' THEN '+' ELSE '' END || regexp_replace(${phone}, '\\D', '', 'g')`;

/** Exported for the test that meets a row in the old form (test/integration/uncallable-phones.test.ts). */
export async function clearImpossible(db: Sequelize, table: 'leads' | 'orders') {
  for (let after = 0; ;) {
    const rows = await db.query<{ id: string; phone: string; country: string }>(
      `SELECT t.id, t.phone, a.phone_country AS country FROM ${table} t JOIN accounts a ON a.id = t.account_id
        WHERE t.id > $1 AND t.phone_normalized = ${oldForm('t.phone')}
        ORDER BY t.id LIMIT ${BATCH}`,
      { bind: [after], type: QueryTypes.SELECT },
    );
    if (!rows.length) return;
    const ids = rows.filter((r) => !normalizePhone(r.phone, r.country)).map((r) => r.id);
    if (ids.length)
      await db.query(`UPDATE ${table} SET phone_normalized = NULL WHERE id = ANY($1::bigint[])`, { bind: [ids] });
    after = Number(rows[rows.length - 1].id);
  }
}

export const up: Migration = async ({ context: db }) => {
  for (const table of ['leads', 'orders'] as const) {
    await db.query(`ALTER TABLE ${table} ALTER COLUMN phone_normalized DROP NOT NULL`);
    await clearImpossible(db, table);
  }
};

/** Back to NOT NULL: a phone without an E.164 form gets the old digits-only form (what 20261130000000 left). */
export const down: Migration = async ({ context: db }) => {
  for (const table of ['leads', 'orders']) {
    await db.query(`UPDATE ${table} SET phone_normalized = ${oldForm('phone')} WHERE phone_normalized IS NULL`);
    await db.query(`ALTER TABLE ${table} ALTER COLUMN phone_normalized SET NOT NULL`);
  }
};
