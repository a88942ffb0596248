import type { AppContext } from '../src/app-context.js';
import type { TestAccount } from './factories.js';

/*
 * Customers with a past, arranged through the services a seller uses: orders of a phone made over POST /orders and
 * moved along new → pushed → shipped → delivered | returned (PUT /orders), and a blocklist row. The customers row
 * follows from the database's triggers.
 */

/** Orders of `phone` in the account, each moved to the outcome given (delivered or returned), oldest first. */
export async function ordersWithOutcomes(
  ctx: AppContext,
  acc: TestAccount,
  phone: string,
  outcomes: ('delivered' | 'returned')[],
  city = 'Casablanca',
): Promise<string[]> {
  if (!outcomes.length) return [];
  const { references } = await ctx.services.orders.createMany(acc.seller.actor, {
    orders: outcomes.map((_, i) => ({
      phone,
      full_name: `Buyer ${i}`,
      city,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
    })),
  });
  for (const status of ['pushed', 'shipped'])
    await ctx.services.orders.updateStatuses(acc.seller.actor, {
      orders: references.map((reference, i) => ({ reference, status, tracking_number: `TRK${i}${Date.now()}` })),
    });
  await ctx.services.orders.updateStatuses(acc.seller.actor, {
    orders: references.map((reference, i) => ({ reference, status: outcomes[i] })),
  });
  return references;
}

/**
 * Puts `phone` (E.164) on the account's blocklist with `reason`. The blocklist's service is another branch's (issue
 * 33); its table is here, so the row is written as that service writes it.
 */
export async function blockPhone(ctx: AppContext, accountId: number, phone: string, reason: string): Promise<void> {
  await ctx.db.sequelize.query(
    `INSERT INTO blocked_phones (account_id, phone_normalized, phone, reason, created_by) VALUES ($1, $2, $2, $3, 'test')`,
    { bind: [accountId, phone, reason] },
  );
}

/** One lead of `phone`, new (the first of its phone in the account), with one product; its id and reference. */
export async function leadOf(ctx: AppContext, acc: TestAccount, phone: string, fullName: string, city = 'Casablanca') {
  const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
    leads: [{ phone, full_name: fullName, city, products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }] }],
  });
  const lead = await ctx.models.Lead.findOne({ where: { reference: references[0] } });
  return { id: Number(lead!.id), reference: references[0] };
}
