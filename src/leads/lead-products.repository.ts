import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import type { PreparedLead } from './lead.check.js';

/** Of these leads, the ids of those that have no product line (such a lead cannot be confirmed). */
export async function leadsWithoutProducts(
  sequelize: Sequelize,
  transaction: Transaction,
  ids: number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await select<{ id: string | number }>(
    sequelize,
    `SELECT v.id FROM unnest($1::bigint[]) AS v(id)
      WHERE NOT EXISTS (SELECT 1 FROM lead_products lp WHERE lp.lead_id = v.id)`,
    [ids],
    transaction,
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** Replaces a lead's product lines (in order) and its total, in the caller's transaction. */
export async function replaceLeadProducts(
  sequelize: Sequelize,
  transaction: Transaction,
  lead: { id: number; account_id: number },
  lines: PreparedLead['products'],
  total: number,
) {
  await sequelize.query('DELETE FROM lead_products WHERE lead_id = $1', { bind: [lead.id], transaction });
  if (lines.length) {
    await sequelize.query(
      `INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
       SELECT $1, $2, x.product_id, x.sku, x.name, x.quantity, x.price, x.position
         FROM unnest($3::bigint[], $4::text[], $5::text[], $6::int[], $7::numeric[], $8::int[])
           AS x(product_id, sku, name, quantity, price, position)`,
      {
        bind: [
          lead.account_id,
          lead.id,
          lines.map((l) => l.product_id),
          lines.map((l) => l.sku),
          lines.map((l) => l.name),
          lines.map((l) => l.quantity),
          lines.map((l) => l.price),
          lines.map((_, i) => i),
        ],
        transaction,
      },
    );
  }
  await sequelize.query('UPDATE leads SET total = $2, updated_at = now() WHERE id = $1', {
    bind: [lead.id, total],
    transaction,
  });
}
