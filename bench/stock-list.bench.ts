import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startWebServer } from '../app/server.js';
import { systemActor } from '../src/actor.js';
import { listAccount } from './list-fill.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * `npm run bench -- stock-list [leads] [products]`: `GET /stock` of an account with `products` products (default
 * 10,000) in 3 warehouses, every level written, side by side with `GET /leads` of an account with `leads` leads
 * (default 1,000,000, filled in SQL by list-fill.ts and reused by later runs): the first page and a deep one of each,
 * requests interleaved over HTTP with a bearer token, p50 and p99 of 100 after 10 warm-ups (issue 43: "not slower").
 */
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** The account `Stock bench <n>`: n active products, warehouses MAIN, CAS and TNG, a level for every pair. */
async function stockAccount(ctx: Awaited<ReturnType<typeof benchContext>>, raw: pg.Client, products: number) {
  const seeded = await seedAccount(ctx, { tag: `stock ${products}`, skus: [], scopes: ['MANAGE STOCK'] });
  const id = seeded.accountId;
  const t0 = performance.now();
  await raw.query(
    `INSERT INTO warehouses (account_id, code, name) VALUES ($1, 'CAS', 'Casablanca'), ($1, 'TNG', 'Tanger')`,
    [id],
  );
  await raw.query(
    `INSERT INTO products (account_id, sku, name, price, low_stock_threshold)
     SELECT $1, 'SKU-' || lpad(g::text, 6, '0'), 'Product ' || g, 100 + g % 400, g % 7 FROM generate_series(1, $2) g`,
    [id, products],
  );
  await raw.query(
    `INSERT INTO stock_levels (account_id, product_id, warehouse_id, on_hand, reserved)
     SELECT $1, p.id, w.id, (abs(hashint4(p.id * 3 + w.id)) % 50), (abs(hashint4(p.id + w.id)) % 5)
       FROM products p JOIN warehouses w ON w.account_id = p.account_id WHERE p.account_id = $1`,
    [id],
  );
  await raw.query('VACUUM ANALYZE products, warehouses, stock_levels');
  process.stdout.write(
    `stock account: ${products} products × 3 warehouses written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return seeded.token;
}

export async function run(args: string[]): Promise<void> {
  const leads = Number(args[0] ?? 1_000_000);
  const products = Number(args[1] ?? 10_000);
  const ctx = await benchContext({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000' });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${web.port}/api/web/1.0`;
  const raw = new pg.Client({ connectionString: ctx.db.url });
  await raw.connect();
  try {
    const lists = await listAccount(ctx, raw, leads);
    const leadsToken = (
      await ctx.services.tokens.createToken(systemActor(), {
        user_id: lists.seller.id,
        name: 'stock-list bench',
        scopes: ['VIEW LEADS'],
      })
    ).token;
    const stockToken = await stockAccount(ctx, raw, products);
    const get = async (path: string, token: string) => {
      const t = performance.now();
      const res = await fetch(`${url}${path}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
      return performance.now() - t;
    };
    const deepStock = Math.floor((products * 3) / 15 / 2);
    const cases: [string, string, string][] = [
      ['GET /leads, first page', '/leads', leadsToken],
      ['GET /stock, first page', '/stock', stockToken],
      ['GET /leads, page 1,000', '/leads?page=1000', leadsToken],
      [`GET /stock, page ${deepStock} (the middle)`, `/stock?page=${deepStock}`, stockToken],
    ];
    const times = new Map(cases.map(([name]) => [name, [] as number[]]));
    for (let i = 0; i < 110; i++)
      for (const [name, path, token] of cases) {
        const took = await get(path, token);
        if (i >= 10) times.get(name)!.push(took);
      }
    process.stdout.write(`\n${leads} leads in one account, ${products} products × 3 warehouses in another:\n`);
    for (const [name] of cases) {
      const xs = times.get(name)!;
      process.stdout.write(`  ${name}: p50 ${ms(pct(xs, 0.5))}, p99 ${ms(pct(xs, 0.99))}\n`);
    }
    const ratio = (a: string, b: string) => (pct(times.get(a)!, 0.5) / pct(times.get(b)!, 0.5)).toFixed(2);
    process.stdout.write(
      `  first page: /stock ÷ /leads = ${ratio(cases[1][0], cases[0][0])}; ` +
        `deep page: ${ratio(cases[3][0], cases[2][0])}\n`,
    );
  } finally {
    await raw.end();
    await web.close();
    await ctx.close();
  }
}
