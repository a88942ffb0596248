import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { startWebServer } from '../app/server.js';
import { systemActor } from '../src/actor.js';
import { ordersCreated, ordersMoved } from '../src/orders/order.events.js';
import { signBody } from '../src/shipping/shipping.service.js';
import { moveOrders, reserveOrders } from '../src/stock/stock.reactions.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * `npm run bench -- stock [--pairs N]`: what the stock upkeep (issue 43) costs the writes it follows, with it against
 * without it, side by side in one process on one embedded database (data/bench-stock). `PUT /leads` confirming 1,000
 * leads of three lines (each confirmation creates an order, which reserves its lines) and a carrier callback shipping
 * 500 of those orders (which queues their shipments for the worker, stock.follows.ts; the bench then runs the worker's
 * follow-stock, timed apart: a ledger row per line and the levels). "Without" is the same tree with the stock's
 * reactions to created and moved orders left out (DomainEvent.without). The rounds alternate with, without, without,
 * with, so the tables' growth lands on both sides alike, and each timed request follows a vacuum and a checkpoint
 * (settle). Prints every round, the ratio of the medians and the median of the pairs' ratios.
 */
const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (n: number) => `${n.toFixed(1)} ms`;

type Times = { confirm: number; callback: number; follow: number };

async function setUp() {
  process.env.BENCH_DATA_DIR ??= path.resolve('data/bench-stock');
  const ctx = await benchContext({
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
    CALLBACK_RATE_PER_MINUTE: '1000000',
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
  });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const { accountId, actor, skus, token } = await seedAccount(ctx, { scopes: ['UPDATE LEADS', 'VIEW LEADS'] });
  const secret = 'bench-secret-0123456789';
  const company = await ctx.services.shipping.createCompany(systemActor(), {
    account_id: accountId,
    code: 'benchship',
    name: 'Bench Ship',
    endpoint_url: 'http://127.0.0.1:9/x',
    hmac_secret: secret,
  });
  const base = `http://127.0.0.1:${web.port}/api/web/1.0`;
  return { ctx, web, actor, skus, token, secret, company, base };
}

type Bench = Awaited<ReturnType<typeof setUp>>;
let phone = 700_000_000 + (process.pid % 1000) * 100_000;

/**
 * What a round has written vacuumed and counted, and a checkpoint taken, before each timed request: neither side meets
 * an autovacuum, an analyze or a checkpoint the other side's writes made due (they moved single rounds by 2×).
 */
async function settle(b: Bench) {
  await b.ctx.db.sequelize.query('VACUUM (ANALYZE)');
  await b.ctx.db.sequelize.query('CHECKPOINT').catch(() => undefined); // a superuser's; a URL's user may not be
}

/** One round: 1,000 new leads (not timed) confirmed in one PUT /leads, then 500 of their orders shipped by callback. */
async function round(b: Bench): Promise<Times> {
  const { references } = await b.ctx.services.leads.createMany(b.actor, {
    leads: Array.from({ length: 1000 }, (_, i) => ({
      phone: `+212${phone++}`,
      full_name: `Stock buyer ${i}`,
      products: b.skus.map((sku) => ({ sku, quantity: 1 + (i % 3), price: 120 })),
    })),
  });
  await settle(b);
  const headers = { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ leads: references.map((reference) => ({ reference, status: 'confirmed' })) });
  let t = performance.now();
  const res = await fetch(`${b.base}/leads`, { method: 'PUT', headers, body });
  if (res.status !== 200) throw new Error(`PUT /leads answered ${res.status}: ${await res.text()}`);
  const confirm = performance.now() - t;
  // 500 of the new orders handed to the carrier (as a push leaves them), then its callback ships them
  const [orders] = (await b.ctx.db.sequelize.query(
    `UPDATE orders SET status = 'pushed', shipping_company_id = $2, push_state = 'sent', pushed_at = now(),
            tracking_number = 'BT' || id
      WHERE id IN (SELECT id FROM orders WHERE lead_reference = ANY ($1::text[]) ORDER BY id LIMIT 500)
     RETURNING reference`,
    { bind: [references, b.company.id] },
  )) as [{ reference: string }[], unknown];
  await settle(b);
  const raw = JSON.stringify({ orders: orders.map((o) => ({ reference: o.reference, status: 'shipped' })) });
  const at = Math.floor(Date.now() / 1000);
  t = performance.now();
  const shipped = await fetch(`${b.base}/shipping/benchship/callback?company=${b.company.id}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-timestamp': String(at),
      'x-signature': signBody(b.secret, `${at}.${raw}`),
    },
    body: raw,
  });
  if (shipped.status !== 200) throw new Error(`the callback answered ${shipped.status}: ${await shipped.text()}`);
  const callback = performance.now() - t;
  t = performance.now();
  await b.ctx.services.stock.follow(); // what the worker does next: the shipments' ledger rows and levels
  return { confirm, callback, follow: performance.now() - t };
}

/** A round with the stock's reactions to created and moved orders left out. */
const roundWithout = (b: Bench) =>
  ordersCreated.without(reserveOrders, () => ordersMoved.without(moveOrders, () => round(b)));

export async function run(): Promise<void> {
  const pairs = Number(flag('--pairs', '8'));
  const b = await setUp();
  try {
    await round(b); // warm-up, both sides
    await roundWithout(b);
    const seen: { with: Times[]; without: Times[] } = { with: [], without: [] };
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
      for (const side of order) seen[side].push(side === 'with' ? await round(b) : await roundWithout(b));
      const [w, o] = [seen.with[i], seen.without[i]];
      process.stdout.write(
        `pair ${i + 1}: PUT /leads ×1,000 confirmations ${ms(o.confirm)} without / ${ms(w.confirm)} with; ` +
          `callback ×500 shipped ${ms(o.callback)} / ${ms(w.callback)}\n`,
      );
    }
    const follow = median(seen.with.map((r) => r.follow));
    process.stdout.write(`the worker's follow-stock after each callback (500 orders shipped): ${ms(follow)}\n`);
    for (const key of ['confirm', 'callback'] as const) {
      const without = median(seen.without.map((r) => r[key]));
      const withIt = median(seen.with.map((r) => r[key]));
      const ratio = (withIt / without).toFixed(2);
      // each pair's two rounds ran next to each other: the median of their ratios is the steadier figure
      const paired = median(seen.with.map((w, i) => w[key] / seen.without[i][key])).toFixed(2);
      process.stdout.write(
        `${key}: ${ms(without)} without the stock upkeep, ${ms(withIt)} with → ratio ${ratio} (pairs: ${paired})\n`,
      );
    }
  } finally {
    await b.web.close();
    await b.ctx.close();
  }
}
