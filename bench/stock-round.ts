import { performance } from 'node:perf_hooks';
import { startWebServer } from '../app/server.js';
import { systemActor } from '../src/actor.js';
import { signBody } from '../src/shipping/shipping.service.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * One round of `npm run bench -- stock` (bench/stock.bench.ts), run by the tree it measures: it uses only what the
 * tree before stock had too (REST, the services' lead create, the carrier callback), so the same script times both.
 * Prints one JSON line: the medians of `PUT /leads` confirming 1,000 leads and of a carrier callback shipping 500
 * orders.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const repeats = Number(process.argv[2] ?? 5);
  const ctx = await benchContext({
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
    CALLBACK_RATE_PER_MINUTE: '1000000',
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
  });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${web.port}/api/web/1.0`;
  try {
    const { accountId, actor, skus, token } = await seedAccount(ctx, { scopes: ['UPDATE LEADS', 'VIEW LEADS'] });
    const secret = 'bench-secret-0123456789';
    const company = await ctx.services.shipping.createCompany(systemActor(), {
      account_id: accountId,
      code: 'benchship',
      name: 'Bench Ship',
      endpoint_url: 'http://127.0.0.1:9/x',
      hmac_secret: secret,
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let phone = 700_000_000 + (process.pid % 1000) * 100_000;
    const confirm: number[] = [];
    const callback: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const { references } = await ctx.services.leads.createMany(actor, {
        leads: Array.from({ length: 1000 }, (_, i) => ({
          phone: `+212${phone++}`,
          full_name: `Stock buyer ${i}`,
          products: skus.map((sku) => ({ sku, quantity: 1 + (i % 3), price: 120 })),
        })),
      });
      const body = JSON.stringify({ leads: references.map((reference) => ({ reference, status: 'confirmed' })) });
      let t = performance.now();
      const res = await fetch(`${base}/leads`, { method: 'PUT', headers, body });
      if (res.status !== 200) throw new Error(`PUT /leads answered ${res.status}: ${await res.text()}`);
      confirm.push(performance.now() - t);
      // 500 of the new orders handed to the carrier (as a push leaves them), then its callback ships them
      const [orders] = (await ctx.db.sequelize.query(
        `UPDATE orders SET status = 'pushed', shipping_company_id = $2, push_state = 'sent', pushed_at = now(),
                tracking_number = 'BT' || id
          WHERE id IN (SELECT id FROM orders WHERE lead_reference = ANY ($1::text[]) ORDER BY id LIMIT 500)
         RETURNING reference`,
        { bind: [references, company.id] },
      )) as [{ reference: string }[], unknown];
      const raw = JSON.stringify({ orders: orders.map((o) => ({ reference: o.reference, status: 'shipped' })) });
      const at = Math.floor(Date.now() / 1000);
      t = performance.now();
      const shipped = await fetch(`${base}/shipping/benchship/callback?company=${company.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-timestamp': String(at),
          'x-signature': signBody(secret, `${at}.${raw}`),
        },
        body: raw,
      });
      if (shipped.status !== 200) throw new Error(`the callback answered ${shipped.status}: ${await shipped.text()}`);
      callback.push(performance.now() - t);
    }
    process.stdout.write(`${JSON.stringify({ confirm: median(confirm), callback: median(callback) })}\n`);
  } finally {
    await web.close();
    await ctx.close();
  }
}

await main();
