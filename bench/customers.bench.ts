import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { QueryTypes } from 'sequelize';
import { startWebServer } from '../app/server.js';
import type { AppContext } from '../app/context.js';
import { signBody } from '../src/shipping/shipping.service.js';
import { systemActor } from '../src/actor.js';
import { benchContext, cpuSeconds, cpuSplit, postmasterPid, seedAccount, treeCpuSince } from './setup.js';

/**
 * The cost of the customer upkeep (migration 20261208100000, docs/performance.md "Customer upkeep"): the lead create
 * (REST POST /leads, 1,000 leads × 3 products), the import (CSV, `rows` rows, default 100,000, through the job's code)
 * and the carrier callback (one order a request, and 500 orders in one request), each WITH the customers triggers and
 * WITHOUT them (disabled for the run; the table is rebuilt afterwards), runs of both alternating in one process so
 * both see the same machine. `npm run bench -- customers [rows] [import rounds, default 3]`.
 */
const UPKEEP_TRIGGERS = ['leads', 'orders'].flatMap((t) =>
  ['insert', 'update', 'delete'].map((op) => [t, `${t}_customers_${op}`]),
);
const SECRET = 'bench-carrier-secret-0123';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
type Mode = 'with' | 'without';

async function upkeep(ctx: AppContext, mode: Mode) {
  for (const [table, trigger] of UPKEEP_TRIGGERS)
    await ctx.db.sequelize.query(
      `ALTER TABLE ${table} ${mode === 'with' ? 'ENABLE ALWAYS' : 'DISABLE'} TRIGGER ${trigger}`,
    );
}

/** Each of `modes` in turn, `rounds` times: the measurements of each mode, in order. */
async function alternate(ctx: AppContext, rounds: number, fn: (mode: Mode, round: number) => Promise<number>) {
  const out: Record<Mode, number[]> = { with: [], without: [] };
  for (let r = 0; r < rounds; r++)
    for (const mode of (r % 2 ? ['without', 'with'] : ['with', 'without']) as Mode[]) {
      await upkeep(ctx, mode);
      out[mode].push(await fn(mode, r));
    }
  await upkeep(ctx, 'with');
  return out;
}

const line = (what: string, unit: string, w: number[], wo: number[], better: 'low' | 'high' = 'low') => {
  const [a, b] = [median(w), median(wo)];
  const cost = better === 'low' ? a / b : b / a;
  return (
    `${what.padEnd(44)} with ${a.toFixed(1)} ${unit}, without ${b.toFixed(1)} ${unit} (medians of ${w.length}; ` +
    `runs with ${w.map((x) => x.toFixed(0)).join(' ')}, without ${wo.map((x) => x.toFixed(0)).join(' ')}) → ` +
    `upkeep costs ${((cost - 1) * 100).toFixed(1)} %\n`
  );
};

export async function run(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 100_000);
  const importRounds = Number(args[1] ?? 3);
  const ctx = await benchContext({
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
    CALLBACK_RATE_PER_MINUTE: '1000000',
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
    IMPORT_MAX_ROWS: '2000000',
    IMPORT_MAX_BYTES: String(500 * 1024 * 1024),
  });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${web.port}/api/web/1.0`;
  try {
    const acc = await seedAccount(ctx, { tag: 'customers', scopes: ['CREATE LEADS', 'VIEW LEADS'] });
    process.stdout.write(await leadCreate(ctx, base, acc));
    process.stdout.write(await importRuns(ctx, acc, rows, importRounds));
    process.stdout.write(await callbacks(ctx, base, acc.accountId));
    const t = performance.now();
    await ctx.db.sequelize.query('SELECT customers_rebuild()');
    process.stdout.write(`customers_rebuild() after the runs: ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  } finally {
    await upkeep(ctx, 'with');
    await web.close();
    await ctx.close();
  }
}

/** POST /leads of 1,000 leads × 3 products, half of them phones already seen (an existing customer). */
async function leadCreate(ctx: AppContext, base: string, acc: Awaited<ReturnType<typeof seedAccount>>) {
  const headers = { authorization: `Bearer ${acc.token}`, 'content-type': 'application/json' };
  let next = 0;
  const body = () =>
    JSON.stringify({
      leads: Array.from({ length: 1000 }, (_, i) => ({
        phone: `+2126${String(i % 2 ? 10_000_000 + (next++ % 500) : 20_000_000 + next++).padStart(8, '0')}`,
        full_name: `Customer ${i}`,
        city: ['Casablanca', 'Rabat', 'Fes'][i % 3],
        products: acc.skus.map((sku) => ({ sku, quantity: 1, price: 120 })),
      })),
    });
  const times = await alternate(ctx, 9, async () => {
    const payload = body();
    const t = performance.now();
    const res = await fetch(`${base}/leads`, { method: 'POST', headers, body: payload });
    if (res.status !== 201) throw new Error(`POST /leads answered ${res.status}`);
    return performance.now() - t;
  });
  // the first round of each warms up
  return line('POST /leads 1,000 × 3 products', 'ms', times.with.slice(1), times.without.slice(1));
}

/** CSV imports of `rows` new phones each (a fresh range per run), through the import service. */
async function importRuns(ctx: AppContext, acc: Awaited<ReturnType<typeof seedAccount>>, rows: number, rounds: number) {
  const dir = path.resolve(process.env.BENCH_DATA_DIR ?? './data/bench', 'files');
  fs.mkdirSync(dir, { recursive: true });
  const cpu: Record<Mode, string[]> = { with: [], without: [] };
  const rates = await alternate(ctx, rounds, async (mode, round) => {
    const file = path.join(dir, `customers-${rows}-${mode}-${round}.csv`);
    const offset = 30_000_000 + (round * 2 + (mode === 'with' ? 0 : 1)) * rows;
    const lines = ['phone,sku,full_name,city,quantity,price,utm_campaign'];
    for (let i = 0; i < rows; i++)
      lines.push(
        `+2127${String(offset + i).padStart(8, '0')},${acc.skus[i % 3]},Customer ${i},Casablanca,1,150,c-${i % 7}`,
      );
    fs.writeFileSync(file, lines.join('\n') + '\n');
    // every run starts from the same tables (the bench's own embedded database), so a later run does not meet the
    // earlier runs' leads; on BENCH_DATABASE_URL the runs add up, alternating with and without
    if (ctx.db.embedded)
      await ctx.db.sequelize.query('TRUNCATE leads, orders, stock_movements, stock_levels, stock_follows CASCADE');
    await ctx.db.sequelize.query('ANALYZE leads');
    const r = await ctx.services.imports.start(acc.actor, {
      path: file,
      originalname: path.basename(file),
      size: fs.statSync(file).size,
    });
    const before = cpuSeconds();
    const server = postmasterPid(ctx);
    const ownSince = server ? treeCpuSince(server) : null;
    const t = performance.now();
    await ctx.services.imports.run(r.id);
    const s = (performance.now() - t) / 1000;
    const node = `node ${(cpuSeconds().node - before.node).toFixed(1)} s`;
    cpu[mode].push(ownSince ? `${node}, this bench's server ${ownSince().toFixed(1)} s` : cpuSplit(before));
    const done = (await ctx.models.ImportRun.findByPk(r.id))!;
    if (done.rows_written !== rows) throw new Error(`import wrote ${done.rows_written} of ${rows}`);
    return rows / s;
  });
  return (
    line(`import CSV ${rows} rows`, 'rows/s', rates.with, rates.without, 'high') +
    `  CPU with: ${cpu.with.join('; ')}\n  CPU without: ${cpu.without.join('; ')}\n`
  );
}

/** Carrier callbacks moving pushed orders of existing customers to shipped: one order a request, and 500 at once. */
async function callbacks(ctx: AppContext, base: string, accountId: number) {
  const company = await ctx.services.shipping.createCompany(systemActor(), {
    account_id: accountId,
    code: 'benchship',
    name: 'Bench Ship',
    endpoint_url: 'http://127.0.0.1:9/x',
    hmac_secret: SECRET,
  });
  const made = await ctx.db.sequelize.query<{ reference: string }>(
    `INSERT INTO orders (account_id, reference, phone, phone_normalized, full_name, status, shipping_company_id,
                         tracking_number, total)
     SELECT $1, 'ORBENCH' || lpad(g::text, 5, '0'), '+2127' || lpad((30000000 + g)::text, 8, '0'),
            '+2127' || lpad((30000000 + g)::text, 8, '0'), 'Bench', 'pushed', $2, 'TRK' || g, 150
       FROM generate_series(1, 4400) g
     RETURNING reference`,
    { bind: [accountId, company.id], type: QueryTypes.SELECT },
  );
  const refs = made.map((m) => m.reference);
  let at = 0;
  const post = async (references: string[]) => {
    const raw = JSON.stringify({ orders: references.map((reference) => ({ reference, status: 'shipped' })) });
    const ts = Math.floor(Date.now() / 1000);
    const t = performance.now();
    const res = await fetch(`${base}/shipping/benchship/callback?company=${company.id}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-timestamp': String(ts),
        'x-signature': signBody(SECRET, `${ts}.${raw}`),
      },
      body: raw,
    });
    if (res.status !== 200) throw new Error(`callback answered ${res.status}: ${await res.text()}`);
    return performance.now() - t;
  };
  const single = await alternate(ctx, 6, async () => {
    const times: number[] = [];
    for (let i = 0; i < 100; i++) times.push(await post([refs[at++]]));
    return median(times);
  });
  const batch = await alternate(ctx, 3, () => post(refs.slice(at, (at += 500))));
  return (
    line('carrier callback, 1 order (median of 100)', 'ms', single.with, single.without) +
    line('carrier callback, 500 orders', 'ms', batch.with, batch.without)
  );
}
