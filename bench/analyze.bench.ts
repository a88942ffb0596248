import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { startWebServer } from '../app/server.js';
import type { AppContext, ProcessContext } from '../app/context.js';
import { jobDefinitions } from '../jobs/index.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * `npm run bench -- analyze [rows=20000] [seconds=3] [rounds=3] [others=100000]`: the lead list of a new account right
 * after it received `rows` leads, and again once the tables are analyzed, side by side in one run, in a table that
 * holds `others` leads of another account (analyzed: an existing install). Two bulk writes: an import of a CSV (the
 * import job's code, in this process) and POSTs of 1,000 leads (with a worker in this process that runs only the
 * statistics job a bulk write wakes). Each list is loaded with autocannon (10 connections) for `seconds`; the ratio
 * of the two figures is the cost of stale statistics. Each write is done `rounds` times (medians). Own embedded
 * database only (it empties the lead tables).
 */
const CONNECTIONS = 10;
const CASES = [
  ['first page', '/leads'],
  ['page 50', '/leads?page=50'],
  ['search full_name', '/leads?search_by=full_name&keyWord=Customer%2012'],
];

async function load(url: string, token: string, seconds: number) {
  const r = await autocannon({
    url,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (r.non2xx + r.errors + r.timeouts) throw new Error(`${url}: ${r.non2xx + r.errors + r.timeouts} failed`);
  return { rps: r.requests.average, p50: r.latency.p50 };
}

type Figure = Awaited<ReturnType<typeof load>>;

/** Each case right after the write, then after ANALYZE of the lead tables (the steady state). */
async function measure(ctx: AppContext, base: string, token: string, seconds: number) {
  const after: Figure[] = [];
  const analyzed: Figure[] = [];
  for (const [, p] of CASES) after.push(await load(`${base}${p}`, token, seconds));
  const [[{ at }]] = (await ctx.db.sequelize.query(
    `SELECT extract(epoch FROM last_analyze) * 1000 AS at FROM pg_stat_user_tables WHERE relname = 'leads'`,
  )) as [{ at: number }[], unknown];
  await ctx.db.sequelize.query('ANALYZE leads, lead_products, lead_histories');
  for (const [, p] of CASES) analyzed.push(await load(`${base}${p}`, token, seconds));
  return { after, analyzed, lastAnalyze: Number(at) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One line per case: medians over the rounds of req/s and p50 right after and analyzed, and the median ratio. */
function report(what: string, rounds: Awaited<ReturnType<typeof measure>>[]) {
  CASES.forEach(([name], i) => {
    const a = rounds.map((r) => r.after[i]);
    const z = rounds.map((r) => r.analyzed[i]);
    const ratios = rounds.map((r) => r.analyzed[i].rps / r.after[i].rps);
    process.stdout.write(
      `${what.padEnd(32)} ${name.padEnd(17)} right after: ${Math.round(median(a.map((f) => f.rps)))} req/s, ` +
        `p50 ${median(a.map((f) => f.p50))} ms; analyzed: ${Math.round(median(z.map((f) => f.rps)))} req/s, ` +
        `p50 ${median(z.map((f) => f.p50))} ms → ${median(ratios).toFixed(2)}× ` +
        `(rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})\n`,
    );
  });
}

/**
 * The lead tables as an existing install has them: emptied, then `others` leads (with a product and a history each)
 * of another account, analyzed. Each round's account is new to the statistics.
 */
async function existingInstall(ctx: AppContext, others: number) {
  await ctx.db.sequelize.query(
    'TRUNCATE leads, lead_products, lead_histories, orders, order_products, order_histories, ' +
      'import_runs, import_run_errors, stock_movements, stock_levels, stock_follows CASCADE',
  );
  const acc = await seedAccount(ctx);
  await ctx.db.sequelize.query(
    `WITH l AS (
       INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, status, total)
       SELECT $1, 'LX' || lpad(g::text, 10, '0'), '+2125' || lpad(g::text, 8, '0'), '+2125' || lpad(g::text, 8, '0'),
              'Other ' || g, 'Fes', 'new', 100
         FROM generate_series(1, $2::int) g
       RETURNING id, account_id, reference),
     p AS (
       INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
       SELECT account_id, id, $3, 'B-1', 'B-1', 1, 100, 0 FROM l)
     INSERT INTO lead_histories (account_id, lead_id, lead_reference, new_status, changed_by)
     SELECT account_id, id, reference, 'new', 'bench' FROM l`,
    { bind: [acc.accountId, others, acc.productIds[0]] },
  );
  await ctx.db.sequelize.query('ANALYZE leads, lead_products, lead_histories');
}

/** A fresh account whose token may list leads, and `rows` leads imported from a CSV by the import job's code. */
async function viaImport(ctx: AppContext, rows: number) {
  const acc = await seedAccount(ctx, { scopes: ['VIEW LEADS'] });
  const dir = path.resolve(ctx.config.dataDir, 'files');
  fs.mkdirSync(dir, { recursive: true });
  const csv = path.join(dir, `analyze-${rows}.csv`);
  const lines = Array.from(
    { length: rows },
    (_, i) => `+2127${String(i).padStart(8, '0')},${acc.skus[i % 3]},Customer ${i},Casablanca,1,150`,
  );
  fs.writeFileSync(csv, ['phone,sku,full_name,city,quantity,price', ...lines].join('\n'));
  const started = await ctx.services.imports.start(acc.actor, {
    path: csv,
    originalname: 'analyze.csv',
    size: fs.statSync(csv).size,
  });
  await ctx.services.imports.run(started.id);
  return acc.token;
}

/** A fresh account, and `rows` leads POSTed 1,000 a request with its token. */
async function viaRest(ctx: AppContext, base: string, rows: number) {
  const acc = await seedAccount(ctx, { scopes: ['CREATE LEADS', 'VIEW LEADS'] });
  for (let done = 0; done < rows; done += 1000) {
    const leads = Array.from({ length: Math.min(1000, rows - done) }, (_, i) => ({
      phone: `+2126${String(done + i).padStart(8, '0')}`,
      full_name: `Customer ${done + i}`,
      city: 'Rabat',
      products: [{ sku: acc.skus[0], quantity: 1, price: 120 }],
    }));
    const res = await fetch(`${base}/leads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acc.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ leads }),
    });
    if (res.status !== 201) throw new Error(`POST /leads answered ${res.status}`);
  }
  return acc.token;
}

export async function run(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 20_000);
  const seconds = Number(args[1] ?? 3);
  const roundCount = Number(args[2] ?? 3);
  const others = Number(args[3] ?? 100_000);
  const ctx = await benchContext({
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
    IMPORT_MAX_ROWS: String(rows),
  });
  if (!ctx.db.embedded)
    throw new Error('the analyze bench empties the lead tables: run it on its own embedded database');
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${web.port}/api/web/1.0`;
  // the statistics job only (benchContext builds a whole process context)
  await (ctx as ProcessContext).jobs.startWorker(
    ctx,
    jobDefinitions.filter((d) => d.name === 'analyze-tables'),
  );
  try {
    process.stdout.write(
      `lead list of an account that receives ${rows} leads while the table holds ${others} of another account ` +
        `(analyzed); ${CONNECTIONS} connections, ${seconds} s a figure, ${roundCount} rounds (medians)\n`,
    );
    const warm = await seedAccount(ctx, { scopes: ['VIEW LEADS'] });
    for (const [, p] of CASES) await load(`${base}${p}`, warm.token, 1); // JIT, pools
    const writes: [string, () => Promise<string>][] = [
      [`after an import of ${rows} rows`, () => viaImport(ctx, rows)],
      [`after ${rows / 1000} POSTs of 1,000 leads`, () => viaRest(ctx, base, rows)],
    ];
    for (const [what, write] of writes) {
      const rounds = [];
      const lags: number[] = [];
      for (let r = 0; r < roundCount; r++) {
        await existingInstall(ctx, others);
        const token = await write();
        const wrote = Date.now();
        const round = await measure(ctx, base, token, seconds);
        rounds.push(round);
        lags.push(Math.round(round.lastAnalyze - wrote));
      }
      report(what, rounds);
      process.stdout.write(
        `${what.padEnd(32)} leads last analyzed (ms after the write's end, rounds): ${lags.join(', ')}\n`,
      );
    }
  } finally {
    await web.close();
    await ctx.close();
  }
}
