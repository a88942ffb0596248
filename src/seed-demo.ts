import type { Transaction } from 'sequelize';
import { userActor } from './actor.js';
import type { AppContext } from './app-context.js';
import { checkLeadItems, type Catalogue, type PreparedLead } from './leads/lead.check.js';
import type { OrderStatus } from './orders/order.model.js';
import { applyOrderMoves } from './orders/order-writes.js';
import { ORDER_LOCK } from './orders/order.repository.js';
import { lockByKeys } from './query.js';

export const DEMO_ACCOUNT = 'Demo Store';

export const DEMO_PRODUCTS = [
  { sku: 'SERUM-01', name: 'Vitamin C Serum', price: 199 },
  { sku: 'CREAM-02', name: 'Night Cream', price: 249 },
  { sku: 'OIL-03', name: 'Argan Oil 100ml', price: 149 },
  { sku: 'MASK-04', name: 'Clay Face Mask', price: 99 },
  { sku: 'KIT-05', name: 'Care Kit', price: 499 },
  { sku: 'OLD-06', name: 'Discontinued Lotion', price: 79, active: false },
];

const NAMES = ['Amina', 'Youssef', 'Salma', 'Omar', 'Khadija', 'Hamza', 'Imane', 'Mehdi', 'Nadia', 'Karim', 'Sara'];
const FAMILY = ['El Idrissi', 'Benali', 'Alaoui', 'Tazi', 'Bennani', 'Chraibi', 'Fassi'];
const CITIES = ['Casablanca', 'Rabat', 'Marrakesh', 'Fes', 'Tangier', 'Agadir'];
const SOURCES = ['facebook', 'tiktok', 'google', 'instagram'];
/** What the demo agent made of the sample leads, in creation order; the rest stay `new`. */
const OUTCOMES = [
  ...Array<string>(12).fill('confirmed'),
  ...['call_later', 'call_later', 'call_later', 'no_answer', 'no_answer', 'no_answer', 'no_answer'],
  ...['wrong', 'wrong', 'canceled', 'canceled', 'canceled', 'duplicate', 'duplicate'],
];
export const DEMO_LEADS = OUTCOMES.length + 8;
/** The way each confirmed lead's order went, one path per order (its history has every step). */
const ORDER_PATHS: OrderStatus[][] = [
  [],
  [],
  ['canceled'],
  ['pushed', 'canceled'],
  ['pushed', 'shipped'],
  ['pushed', 'shipped'],
  ['pushed', 'shipped', 'delivered'],
  ['pushed', 'shipped', 'delivered'],
  ['pushed', 'shipped', 'delivered'],
  ['pushed', 'shipped', 'delivered'],
  ['pushed', 'shipped', 'delivered'],
  ['pushed', 'shipped', 'returned'],
];

/** The sample leads, as a landing page would send them (phones in the account's country, Morocco by default). */
function sampleItems() {
  const skus = DEMO_PRODUCTS.filter((p) => p.active !== false);
  return Array.from({ length: DEMO_LEADS }, (_, i) => {
    const first = skus[i % skus.length];
    const second = skus[(i + 2) % skus.length];
    return {
      phone: `+2126612${String(34001 + i * 7).padStart(5, '0')}`,
      full_name: `${NAMES[i % NAMES.length]} ${FAMILY[i % FAMILY.length]}`,
      city: CITIES[i % CITIES.length],
      address: `${12 + i} Rue de la Demo`,
      data: [{ key: 'utm_source', value: SOURCES[i % SOURCES.length] }],
      products: [
        { sku: first.sku, quantity: 1 + (i % 2), price: first.price },
        ...(i % 3 === 0 ? [{ sku: second.sku, quantity: 1, price: second.price }] : []),
      ],
    };
  });
}

interface DemoUsers {
  accountId: number;
  seller: { id: number; name: string };
  agent: { id: number; name: string };
  catalogue: Catalogue;
  country: string;
}

/**
 * A few dozen sample leads of the demo account, written in the seed's transaction through the write paths every
 * entry point uses: created by the demo seller (creation history), then moved by the demo agent (statuses, status
 * history, an order per confirmed lead), the orders moved along the carrier's way, and the KPI rollup folded, so
 * every screen of a new install has something to show.
 */
export async function seedSampleLeads(ctx: AppContext, transaction: Transaction, demo: DemoUsers): Promise<void> {
  const { prepared, errors } = checkLeadItems(sampleItems(), 'leads', demo.catalogue, demo.country);
  if (Object.keys(errors).length) throw new Error(`demo leads invalid: ${JSON.stringify(errors)}`);
  const seller = userActor({ ...demo.seller, account_id: demo.accountId, role: 'seller' });
  const agent = userActor({ ...demo.agent, account_id: demo.accountId, role: 'agent' });
  const references = await ctx.services.leads.insertLeads(seller, prepared as PreparedLead[], {
    transaction,
    accountId: demo.accountId,
  });
  const [rows] = (await ctx.db.sequelize.query(
    'SELECT id, reference FROM leads WHERE account_id = $1 AND reference = ANY($2::text[])',
    { bind: [demo.accountId, references], transaction },
  )) as [{ id: number; reference: string }[], unknown];
  const idOf = new Map(rows.map((r) => [r.reference, Number(r.id)]));
  const tomorrow = new Date(Date.now() + 86_400_000);
  const moves = OUTCOMES.map((status, i) => ({
    id: idOf.get(references[i])!,
    reference: references[i],
    account_id: demo.accountId,
    old: 'new',
    status,
    action_date: status === 'call_later' ? tomorrow : null,
  }));
  await ctx.services.leads.applyStatusChanges(agent, transaction, moves);
  await moveOrders(ctx, transaction, demo, references.slice(0, ORDER_PATHS.length));
  await ctx.db.sequelize.query('SELECT kpi_fold()', { transaction });
}

/** Walks the sample orders (of the confirmed leads) along their paths, one step per round. */
async function moveOrders(ctx: AppContext, transaction: Transaction, demo: DemoUsers, leadRefs: string[]) {
  const [orders] = (await ctx.db.sequelize.query(
    'SELECT reference, lead_reference FROM orders WHERE account_id = $1 AND lead_reference = ANY($2::text[])',
    { bind: [demo.accountId, leadRefs], transaction },
  )) as [{ reference: string; lead_reference: string }[], unknown];
  const orderOf = new Map(orders.map((o) => [o.lead_reference, o.reference]));
  const by = { name: demo.agent.name, userId: demo.agent.id };
  for (let step = 0; step < 3; step++) {
    const due = leadRefs.flatMap((ref, i) => (ORDER_PATHS[i][step] ? [{ ref: orderOf.get(ref)!, i }] : []));
    if (!due.length) continue;
    const { byKey } = await lockByKeys(ctx.db.sequelize, transaction, ORDER_LOCK, {
      by: 'references',
      keys: due.map((d) => d.ref),
      accountId: demo.accountId,
      path: (i: number) => `references.${i}`,
    });
    const moves = due.map((d) => ({ row: byKey.get(d.ref)!, status: ORDER_PATHS[d.i][step], path: d.ref }));
    await applyOrderMoves(ctx, transaction, moves, by);
  }
}
