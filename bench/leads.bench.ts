import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startWebServer } from '../app/server.js';
import { systemActor } from '../src/actor.js';
import type { AppContext } from '../app/context.js';
import { newReferences } from '../src/references.js';
import { login } from '../test/session.js';
import { listAccount } from './list-fill.js';
import { listCases, statementsOf, timeCase, type ListCase } from './list-cases.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * POST of 1,000 leads × 3 products over HTTP against the same rows inserted by raw SQL (pg, unnest, one transaction),
 * then every list (leads, orders, both histories) at `total` rows in one account (default 100,000; filled in SQL by
 * list-fill.ts, reused by later runs): first and deep pages, status filters, each search_by, an admin's lists of
 * every account; each over HTTP against the statements the app sent, replayed over pg (list-cases.ts).
 * Own embedded database under BENCH_DATA_DIR (default ./data/bench), or BENCH_DATABASE_URL.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (n: number) => `${n.toFixed(1)} ms`;

export async function run(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 100_000);
  const ctx = await benchContext({
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
    SESSION_RATE_PER_MINUTE: '1000000',
  });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${web.port}/api/web/1.0`;
  const raw = new pg.Client({ connectionString: ctx.db.url });
  await raw.connect();
  try {
    const { accountId, skus, productIds, token } = await seedAccount(ctx, { scopes: ['CREATE LEADS', 'VIEW LEADS'] });
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
          accountId,
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
          accountId,
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
        [accountId, ids, refs],
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

    await listBench(ctx, url, raw, total);
  } finally {
    await raw.end();
    await web.close();
    await ctx.close();
  }
}

/** Every list case at `total` rows: p50 and p99 over HTTP, and of the same statements replayed over pg. */
async function listBench(ctx: AppContext, url: string, raw: pg.Client, total: number) {
  const acc = await listAccount(ctx, raw, total);
  const token = (
    await ctx.services.tokens.createToken(systemActor(), {
      user_id: acc.seller.id,
      name: 'lists bench',
      scopes: ['VIEW LEADS', 'VIEW ORDERS'],
    })
  ).token;
  const site = url.replace(/\/api\/web\/1\.0$/, '');
  const sessions = {
    'seller session': await login(site, acc.seller.email, 'bench-password'),
    'admin session': await login(site, acc.admin.email, 'bench-password'),
  };
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const get = async (c: ListCase) => {
    const res = c.who === 'token' ? await fetch(`${url}${c.path}`, { headers }) : await sessions[c.who].fetch(c.path);
    const body = (await res.json()) as { meta?: { total: number; total_exact: boolean } };
    if (res.status !== 200 || !body.meta) throw new Error(`GET ${c.path} answered ${res.status}`);
    return body.meta;
  };
  const pool = new pg.Pool({ connectionString: ctx.db.url, max: 2 });
  pool.on('error', () => {});
  process.stdout.write(
    `\nlists at ${total} rows in one account: p50 / p99 of 100 requests after 10 warm-ups, over HTTP (app) and ` +
      'the statements it sent replayed over pg (raw)\n',
  );
  try {
    for (const c of await listCases(raw, acc.accountId)) {
      let meta = { total: 0, total_exact: true };
      const sent = await statementsOf(ctx.db.sequelize, async () => (meta = await get(c)));
      const t = await timeCase(() => get(c), pool, sent);
      process.stdout.write(
        `${c.list.padEnd(15)} ${c.name.padEnd(50)} app ${ms(t.app.p50)} / ${ms(t.app.p99)}  ` +
          `raw ${ms(t.raw.p50)} / ${ms(t.raw.p99)}  total ${meta.total}${meta.total_exact ? '' : ' (bound)'}` +
          `${sent.length === 1 ? '' : `, ${sent.length} statements`}  ${c.path}\n`,
      );
    }
  } finally {
    await pool.end();
  }
}
