import { QueryTypes } from 'sequelize';
import type { Actor } from '../src/actor.js';
import { systemActor } from '../src/actor.js';
import { getCtx } from './hooks.js';
import type { TestAccount } from './factories.js';

/** The stock tests' shared steps (test/integration/stock*.test.ts): leads, their orders, moves and the levels. */

let phoneSeq = 0;
export const phone = () =>
  `+2126${String(Date.now() % 1000000).padStart(6, '0')}${String(++phoneSeq % 100).padStart(2, '0')}`;

export type Level = { sku: string; warehouse: string; on_hand: number; reserved: number; available: number };

export async function levels(accountId: number): Promise<Level[]> {
  const page = await getCtx().services.stock.list(systemActor(), { account_id: accountId, per_page: 100 });
  return page.data.map(({ sku, warehouse, on_hand, reserved, available }) => ({
    sku,
    warehouse,
    on_hand,
    reserved,
    available,
  }));
}

/** What the orders say the levels must be: received and adjusted, minus shipped, plus returned; reserved by open ones. */
export async function fromOrders(accountId: number): Promise<Record<string, { on_hand: number; reserved: number }>> {
  const rows = await getCtx().db.sequelize.query<{ sku: string; on_hand: number; reserved: number }>(
    `SELECT p.sku,
            (SELECT coalesce(sum(quantity), 0) FROM stock_movements m
              WHERE m.product_id = p.id AND m.kind IN ('receipt', 'adjustment'))
          - (SELECT coalesce(sum(op.quantity), 0) FROM order_products op JOIN orders o ON o.id = op.order_id
              WHERE op.product_id = p.id AND o.status IN ('shipped', 'delivered'))::int AS on_hand,
            (SELECT coalesce(sum(op.quantity), 0) FROM order_products op JOIN orders o ON o.id = op.order_id
              WHERE op.product_id = p.id AND o.status IN ('new', 'pushed'))::int AS reserved
       FROM products p WHERE p.account_id = $1 AND p.active ORDER BY p.sku`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  return Object.fromEntries(rows.map((r) => [r.sku, { on_hand: Number(r.on_hand), reserved: Number(r.reserved) }]));
}

export async function newLead(acc: TestAccount, lines: [string, number][]): Promise<string> {
  const { references } = await getCtx().services.leads.createMany(acc.seller.actor, {
    leads: [
      {
        phone: phone(),
        full_name: 'Stock Buyer',
        products: lines.map(([sku, quantity]) => ({ sku, quantity, price: 100 })),
      },
    ],
  });
  return references[0];
}

export const confirm = (actor: Actor, reference: string) =>
  getCtx().services.leads.updateStatuses(actor, { leads: [{ reference, status: 'confirmed' }] });

export async function orderOf(leadReference: string): Promise<string> {
  const [row] = await getCtx().db.sequelize.query<{ reference: string }>(
    'SELECT reference FROM orders WHERE lead_reference = $1',
    { bind: [leadReference], type: QueryTypes.SELECT },
  );
  return row.reference;
}

export const move = (acc: TestAccount, reference: string, status: string) =>
  getCtx().services.orders.updateStatuses(acc.seller.actor, { orders: [{ reference, status }] });
