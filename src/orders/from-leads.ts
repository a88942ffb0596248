import { QueryTypes, type Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { insertHistory } from '../histories/history.repository.js';
import type { ConfirmedOrder } from '../leads/lead.events.js';
import { newReferences } from '../references.js';
import { ordersCreated } from './order.events.js';

/**
 * Creates the order of each confirmed lead, exactly once: the unique index orders_lead_key (account_id,
 * lead_reference) makes a second confirmation, a re-confirmation after a round trip or a concurrent one a no-op.
 * Set-based: a constant number of statements whatever the number of leads. Returns the orders it created, each with
 * its lead's reference (a lead whose order exists already is not among them).
 */
export async function createOrdersFromLeads(
  core: Core,
  transaction: Transaction,
  actor: Actor,
  leadIds: number[],
): Promise<ConfirmedOrder[]> {
  if (leadIds.length === 0) return [];
  const { sequelize } = core.db;
  const refs = newReferences('OR', leadIds.length);
  const created = await sequelize.query<ConfirmedOrder & { id: number; lead_id: number; account_id: number }>(
    `INSERT INTO orders (account_id, reference, lead_id, lead_reference, phone, phone_normalized, full_name, city, area,
                         address, data, total, status, created_by_user_id)
     SELECT l.account_id, v.ref, l.id, l.reference, l.phone, l.phone_normalized, l.full_name, l.city, l.area, l.address,
            l.data, l.total, 'new', $3
       FROM unnest($1::bigint[], $2::text[]) AS v(lead_id, ref)
       JOIN leads l ON l.id = v.lead_id
     ON CONFLICT (account_id, lead_reference) WHERE lead_reference IS NOT NULL DO NOTHING
     RETURNING id, reference, lead_id, lead_reference, account_id`,
    { bind: [leadIds, refs, actorUserId(actor)], type: QueryTypes.SELECT, transaction },
  );
  if (created.length === 0) return [];
  const orderIds = created.map((o) => o.id);
  await sequelize.query(
    `INSERT INTO order_products (account_id, order_id, product_id, sku, name, quantity, price, position)
     SELECT o.account_id, o.id, lp.product_id, lp.sku, lp.name, lp.quantity, lp.price, lp.position
       FROM orders o JOIN lead_products lp ON lp.lead_id = o.lead_id
      WHERE o.id = ANY($1::bigint[])`,
    { bind: [orderIds], transaction },
  );
  await insertHistory(
    sequelize,
    transaction,
    'order',
    created.map((o) => ({ account_id: o.account_id, id: o.id, reference: o.reference, old: null, status: 'new' })),
    actor,
  );
  await ordersCreated.emit(core, { transaction, orderIds, by: { name: actor.name, userId: actorUserId(actor) } });
  return created.map((o) => ({ reference: o.reference, lead_reference: o.lead_reference }));
}
