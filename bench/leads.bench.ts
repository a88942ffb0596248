import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startWebServer } from '../app/server.js';
import { systemActor } from '../src/actor.js';
import { createAppContext } from '../app/context.js';
import { loadConfig } from '../src/config.js';
import { newReferences } from '../src/references.js';

/**
 * POST of 1,000 leads × 3 products over HTTP against the same rows inserted by raw SQL (pg, unnest, one transaction),
 * then GET /leads at 100 k leads (first pages, deep pages, searches) against the same SELECTs run raw.
 * Own embedded database under ./data/bench (or BENCH_DATABASE_URL).
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (n: number) => `${n.toFixed(1)} ms`;

export async function run(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 100_000);
  const config = loadConfig({
    ...process.env,
    DATA_DIR: './data/bench',
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: 'fast',
    RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
  });
  const ctx = await createAppContext(config, { database: 'leadflow_bench' });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${web.port}/api/web/1.0`;
  const raw = new pg.Client({ connectionString: ctx.db.url });
  await raw.connect();
  const pool = new pg.Pool({ connectionString: ctx.db.url, max: 2 });
  try {
    const sys = systemActor();
    const acc = await ctx.services.accounts.createAccount(sys, { name: `Bench ${Date.now()}` });
    const seller = await ctx.services.accounts.createUser(sys, {
      account_id: acc.id,
      role: 'seller',
      email: `bench-${Date.now()}@bench.local`,
      password: 'bench-password',
      name: 'Bench Seller',
    });
    const skus = ['B-1', 'B-2', 'B-3'];
    const productIds: number[] = [];
    for (const sku of skus)
      productIds.push(
        (await ctx.services.catalogue.createProduct(sys, { account_id: acc.id, sku, name: sku, price: 100 })).id,
      );
    const token = (
      await ctx.services.tokens.createToken(sys, {
        user_id: seller.id,
        name: 'bench',
        scopes: ['CREATE LEADS', 'VIEW LEADS'],
      })
    ).token;
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    };
    let phone = 600_000_000;
    const batch = () =>
      Array.from({ length: 1000 }, (_, i) => ({
        phone: `+212${phone++}`,
        full_name: `Customer ${i} Benali`,
        city: ['Casablanca', 'Rabat', 'Fes'][i % 3],
        products: skus.map((sku) => ({ sku, quantity: 1 + (i % 3), price: 120 })),
      }));

    const api: number[] = [];
    const sql: number[] = [];
    for (let r = 0; r < 7; r++) {
      const body = JSON.stringify({ leads: batch() });
      let t = performance.now();
      const res = await fetch(`${url}/leads`, { method: 'POST', headers, body });
      if (res.status !== 201) throw new Error(`POST /leads answered ${res.status}`);
      api.push(performance.now() - t);

      const items = batch();
      t = performance.now();
      await raw.query('BEGIN');
      const refs = newReferences('LD', items.length);
      const { rows } = await raw.query(
        `INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, total, status)
         SELECT $1, * , 'new' FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[])
         RETURNING id`,
        [
          acc.id,
          refs,
          items.map((l) => l.phone),
          items.map((l) => l.phone),
          items.map((l) => l.full_name),
          items.map((l) => l.city),
          items.map(() => 360),
        ],
      );
      const ids = rows.map((x) => x.id);
      await raw.query(
        `INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
         SELECT $1, *
           FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::int[], $7::numeric[], $8::smallint[])`,
        [
          acc.id,
          ids.flatMap((id) => [id, id, id]),
          ids.flatMap(() => productIds),
          ids.flatMap(() => skus),
          ids.flatMap(() => skus),
          ids.flatMap(() => [1, 1, 1]),
          ids.flatMap(() => [120, 120, 120]),
          ids.flatMap(() => [0, 1, 2]),
        ],
      );
      await raw.query(
        `INSERT INTO lead_histories (account_id, lead_id, lead_reference, new_status, changed_by)
         SELECT $1, *, 'new', 'bench' FROM unnest($2::bigint[], $3::text[])`,
        [acc.id, ids, refs],
      );
      await raw.query('COMMIT');
      sql.push(performance.now() - t);
    }
    const apiMed = median(api.slice(2));
    const sqlMed = median(sql.slice(2));
    process.stdout.write(
      `POST /leads 1,000 × 3 products: median ${ms(apiMed)} (API, over HTTP, validation + duplicate check + history) ` +
        `vs ${ms(sqlMed)} raw SQL inserts → ratio ${(apiMed / sqlMed).toFixed(2)}\n`,
    );

    const existing = Number(
      (await raw.query('SELECT count(*) FROM leads WHERE account_id = $1', [acc.id])).rows[0].count,
    );
    const actor = { kind: 'user', userId: seller.id, accountId: acc.id, role: 'seller', name: 'Bench Seller' } as const;
    const fill = Math.max(0, total - existing);
    const t0 = performance.now();
    for (let done = 0; done < fill; done += 1000)
      await ctx.services.leads.createMany(actor, { leads: batch().slice(0, Math.min(1000, fill - done)) });
    process.stdout.write(`filled to ${total} leads in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    // The steady state autovacuum reaches within a minute of a bulk load: statistics, and trigram pending lists merged.
    await raw.query('VACUUM ANALYZE leads');

    const cases: [string, string, string][] = [
      ['first page (15)', '/leads', 'ORDER BY created_at DESC, id DESC LIMIT 15 OFFSET 0'],
      ['page 100 (15)', '/leads?page=100', 'ORDER BY created_at DESC, id DESC LIMIT 15 OFFSET 1485'],
      [
        'search phone digits',
        '/leads?search_by=phone&keyWord=6000123',
        "AND phone_normalized LIKE '%6000123%' ORDER BY created_at DESC, id DESC LIMIT 15",
      ],
      [
        'search full_name',
        '/leads?search_by=full_name&keyWord=customer%20999',
        "AND full_name ILIKE '%customer 999%' ORDER BY created_at DESC, id DESC LIMIT 15",
      ],
      [
        'search reference',
        '/leads?search_by=reference&keyWord=LD0000000000',
        "AND reference = 'LD0000000000' ORDER BY created_at DESC, id DESC LIMIT 15",
      ],
    ];
    for (const [name, path, tail] of cases) {
      const a: number[] = [];
      const s: number[] = [];
      for (let i = 0; i < 60; i++) {
        let t = performance.now();
        const res = await fetch(`${url}${path}`, { headers });
        await res.json();
        a.push(performance.now() - t);
        t = performance.now();
        // The same two statements the service runs, in parallel like the service.
        await Promise.all([
          pool.query(
            `SELECT reference, full_name, phone, city, status, created_at FROM leads WHERE account_id = $1 ${tail}`,
            [acc.id],
          ),
          pool.query(
            `SELECT count(*) FROM leads
              WHERE account_id = $1 ${tail.startsWith('AND') ? tail.replace(/ ORDER BY.*$/, '') : ''}`,
            [acc.id],
          ),
        ]);
        s.push(performance.now() - t);
      }
      const w = a.slice(10);
      const r = s.slice(10);
      process.stdout.write(
        `GET ${path} at ${total} leads (${name}): p50 ${ms(pct(w, 0.5))}, p99 ${ms(pct(w, 0.99))} ` +
          `vs raw SQL p50 ${ms(pct(r, 0.5))} → ratio ${(pct(w, 0.5) / pct(r, 0.5)).toFixed(2)}\n`,
      );
    }
  } finally {
    await raw.end();
    await pool.end();
    await web.close();
    await ctx.close();
  }
}
