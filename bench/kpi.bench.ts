import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createAppContext } from '../app/context.js';
import { loadConfig } from '../src/config.js';
import { kpiAccount, secs, triggerCost, type KpiAccount } from './kpi-fill.js';

/**
 * The KPI dashboard at `total` leads in one account (default 1,000,000, spread over 365 days; kpi-fill.ts): the
 * service call the KPI page makes (`services.kpi.kpi`) for each breakdown over 30, 90 and 365 days, p50 and p99 of
 * RUNS calls after warm-ups; beside it the same figures computed live from the source tables without the rollup
 * (fewer runs: they take seconds). Then one fold of a dirty day, the rebuild of the whole rollup, a change of the
 * account's time zone (its rows rebuilt in the change) and what the rollup's triggers cost a 5,000-lead insert
 * statement.
 * Own embedded database under BENCH_DATA_DIR (default ./data/bench), or BENCH_DATABASE_URL.
 */
const RUNS = 50;
const LIVE_RUNS = 5;
const BYS = ['product', 'city', 'source', 'agent'] as const;
const PERIODS = [30, 90, 365];
const DAY = 86_400_000;

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(10);
const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

async function timed(runs: number, warm: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warm; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

/** The breakdown key of a lead computed live (the definitions of the rollup's kpi_rows, migration 20261129000000). */
const LIVE_KEY: Record<(typeof BYS)[number], string> = {
  city: "coalesce(nullif(btrim(l.city), ''), '(none)')",
  source: `coalesce((SELECT nullif(btrim(e.pair->>'value'), '') FROM jsonb_array_elements(l.data) WITH ORDINALITY
             AS e(pair, n) WHERE lower(e.pair->>'key') = 'utm_source' ORDER BY e.n LIMIT 1), '(none)')`,
  agent: `coalesce((SELECT h.changed_by_user_id::text FROM lead_histories h WHERE h.lead_id = l.id
             AND h.changed_by_user_id IS NOT NULL ORDER BY h.changed_at DESC, h.id DESC LIMIT 1), '(nobody)')`,
  product: "coalesce(p.sku, '(none)')",
};

/** The report's two reads computed from the leads, their products, history and orders: what the rollup replaces. */
function live(pool: pg.Pool, accountId: number, by: (typeof BYS)[number], from: string, to: string) {
  const range = `l.account_id = $1 AND l.created_at >= $2::date::timestamp AT TIME ZONE 'UTC'
                 AND l.created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'`;
  const delivered = "EXISTS (SELECT 1 FROM orders o WHERE o.lead_id = l.id AND o.status = 'delivered')::int";
  const products =
    by === 'product'
      ? 'LEFT JOIN LATERAL (SELECT DISTINCT sku FROM lead_products lp WHERE lp.lead_id = l.id) p ON true'
      : '';
  return Promise.all([
    pool.query(
      `SELECT (l.created_at AT TIME ZONE 'UTC')::date AS day, l.status, count(*), sum(${delivered})
         FROM leads l WHERE ${range} GROUP BY 1, 2`,
      [accountId, from, to],
    ),
    pool.query(
      `SELECT ${LIVE_KEY[by]} AS key, count(*) AS leads, sum((l.status = 'confirmed')::int), sum(${delivered}) AS d
         FROM leads l ${products} WHERE ${range} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50`,
      [accountId, from, to],
    ),
  ]);
}

export async function run(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 1_000_000);
  const config = loadConfig({
    ...process.env,
    DATA_DIR: process.env.BENCH_DATA_DIR ?? './data/bench',
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: 'fast',
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
  });
  const ctx = await createAppContext(config, { database: 'leadflow_bench' });
  const raw = new pg.Client({ connectionString: ctx.db.url });
  await raw.connect();
  const pool = new pg.Pool({ connectionString: ctx.db.url, max: 2 });
  pool.on('error', () => {});
  try {
    const acc = await kpiAccount(ctx, raw, total);
    let t0 = performance.now();
    const folded = await ctx.services.kpi.fold();
    process.stdout.write(`fold of what is marked (${folded} account-days): ${secs(t0)}\n`);
    t0 = performance.now();
    await raw.query('VACUUM ANALYZE leads, lead_products, lead_histories, orders, kpi_daily, kpi_dirty, kpi_delays');
    process.stdout.write(`VACUUM ANALYZE: ${secs(t0)}\n`);
    const { rows } = await raw.query('SELECT count(*)::int AS n FROM kpi_daily WHERE account_id = $1', [acc.accountId]);
    process.stdout.write(`rollup rows of the account: ${rows[0].n}\n\n`);
    await queryTable(ctx, pool, acc);
    await speedTable(ctx, pool, acc);
    await foldAndRebuild(ctx, raw, acc);
    const cost = await triggerCost(raw, acc.accountId);
    const kpi = cost.triggers.filter((t) => t['Trigger Name'].includes('_kpi_'));
    const kpiMs = kpi.reduce((s, t) => s + t.Time, 0);
    process.stdout.write(
      `\ninsert of 5,000 leads with products, history and orders in one statement (rolled back): ` +
        `${ms(cost.total).trim()}, of which the KPI triggers ${ms(kpiMs).trim()} ` +
        `(${((kpiMs / cost.total) * 100).toFixed(1)} %): ` +
        `${kpi.map((t) => `${t['Trigger Name']} ${t.Time.toFixed(2)} ms`).join(', ')}; row-count triggers ` +
        `${cost.triggers
          .filter((t) => t['Trigger Name'].includes('_count_'))
          .reduce((s, t) => s + t.Time, 0)
          .toFixed(2)} ms; customer upkeep ` +
        `${cost.triggers
          .filter((t) => t['Trigger Name'].includes('_customers_'))
          .map((t) => `${t['Trigger Name']} ${t.Time.toFixed(2)} ms`)
          .join(', ')}\n`,
    );
  } finally {
    await pool.end();
    await raw.end();
    await ctx.close();
  }
}

type Ctx = Awaited<ReturnType<typeof createAppContext>>;

/** The KPI page's service call per breakdown and period, against the same figures computed live. */
async function queryTable(ctx: Ctx, pool: pg.Pool, acc: KpiAccount) {
  process.stdout.write(
    `KPI page: services.kpi.kpi p50 / p99 of ${RUNS} calls after 5 warm-ups (goal p50 ≤ 100 ms); ` +
      `live from the source tables, p50 / max of ${LIVE_RUNS}; * an admin's report of every account\n`,
  );
  const head = ['rollup p50', 'p99', 'live p50', 'max'].map((h) => h.padStart(10));
  process.stdout.write(`by       days  ${head[0]} ${head[1]}   ${head[2]} ${head[3]}   ratio\n`);
  const to = dayOf(Date.now());
  const cases = PERIODS.flatMap((days) => BYS.map((by) => ({ days, by, admin: false })));
  for (const days of PERIODS) cases.push({ days, by: 'city', admin: true });
  for (const { days, by, admin } of cases) {
    const from = dayOf(Date.now() - (days - 1) * DAY);
    // an admin's report of every account; its live reference is the bench account's alone (the others are small)
    const report = () => ctx.services.kpi.kpi(admin ? acc.admin : acc.seller, { from, to, by });
    const rollup = await timed(RUNS, 5, report);
    const direct = await timed(LIVE_RUNS, 1, () => live(pool, acc.accountId, by, from, to));
    const ratio = (pct(direct, 0.5) / pct(rollup, 0.5)).toFixed(0);
    const name = (admin ? `${by}*` : by).padEnd(8);
    process.stdout.write(
      `${name} ${String(days).padStart(4)}  ${ms(pct(rollup, 0.5))} ${ms(pct(rollup, 0.99))}   ` +
        `${ms(pct(direct, 0.5))} ${ms(Math.max(...direct))}   ${ratio}×\n`,
    );
  }
}

/** Speed to lead's percentiles of the account's touched leads computed live (what kpi_delays replaces). */
function liveSpeed(pool: pg.Pool, accountId: number, from: string, to: string) {
  return pool.query(
    `SELECT first_touch_user_id, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY first_touch_at - created_at)
       FROM leads WHERE account_id = $1 AND first_touch_at IS NOT NULL
        AND created_at >= $2::date::timestamp AT TIME ZONE 'UTC'
        AND created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
      GROUP BY 1`,
    [accountId, from, to],
  );
}

/**
 * The page's second call, `services.kpi.speed` (speed to lead by day, agent and entry point; confirmation by delay
 * band; return rate by city, product and confirmer), and the page's two calls at once as its handler makes them.
 */
async function speedTable(ctx: Ctx, pool: pg.Pool, acc: KpiAccount) {
  process.stdout.write(
    `\nspeed to lead and return rate: services.kpi.speed p50 / p99 of ${RUNS} calls after 5 warm-ups; the page ` +
      `(kpi + speed at once); live: the percentiles by agent from the leads, p50 of ${LIVE_RUNS}\n`,
  );
  process.stdout.write(
    `who      days  ${['speed p50', 'p99', 'page p50', 'p99', 'live p50'].map((h) => h.padStart(10)).join(' ')}\n`,
  );
  const to = dayOf(Date.now());
  for (const admin of [false, true])
    for (const days of PERIODS) {
      const from = dayOf(Date.now() - (days - 1) * DAY);
      const actor = admin ? acc.admin : acc.seller;
      const speed = await timed(RUNS, 5, () => ctx.services.kpi.speed(actor, { from, to }));
      const page = await timed(RUNS, 5, () =>
        Promise.all([ctx.services.kpi.kpi(actor, { from, to }), ctx.services.kpi.speed(actor, { from, to })]),
      );
      const direct = admin ? [] : await timed(LIVE_RUNS, 1, () => liveSpeed(pool, acc.accountId, from, to));
      process.stdout.write(
        `${(admin ? 'admin*' : 'seller').padEnd(8)} ${String(days).padStart(4)}  ${ms(pct(speed, 0.5))} ` +
          `${ms(pct(speed, 0.99))} ${ms(pct(page, 0.5))} ${ms(pct(page, 0.99))} ` +
          `${direct.length ? ms(pct(direct, 0.5)) : ''.padStart(10)}\n`,
      );
    }
}

/**
 * One fold of a dirty day (a lead's status changed through the service: the lead marks its day, its history entry
 * its id), five times on five days, and the rebuild of everything.
 */
async function foldAndRebuild(ctx: Ctx, raw: pg.Client, acc: KpiAccount) {
  const folds: number[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await raw.query<{ reference: string; status: string; n: number }>(
      `SELECT reference, status,
              (SELECT count(*)::int FROM leads WHERE account_id = $1 AND created_at >= date_trunc('day', l.created_at)
                  AND created_at < date_trunc('day', l.created_at) + interval '1 day') AS n
         FROM leads l WHERE account_id = $1 AND created_at >= date_trunc('day', now()) - $2 * interval '1 day'
        ORDER BY created_at LIMIT 1`,
      [acc.accountId, 10 + i * 30],
    );
    const status = rows[0].status === 'wrong' ? 'no_answer' : 'wrong';
    await ctx.services.leads.updateStatuses(acc.seller, { leads: [{ reference: rows[0].reference, status }] });
    const t = performance.now();
    const n = await ctx.services.kpi.fold();
    folds.push(performance.now() - t);
    sizes.push(rows[0].n);
    if (n !== 1) throw new Error(`the fold recomputed ${n} days, not 1`);
  }
  process.stdout.write(
    `\nfold of one dirty day (${Math.min(...sizes)}–${Math.max(...sizes)} leads): p50 ${ms(pct(folds, 0.5)).trim()}, ` +
      `max ${ms(Math.max(...folds)).trim()} (5 folds)\n`,
  );
  const t0 = performance.now();
  const days = await ctx.services.kpi.rebuild();
  process.stdout.write(`rebuild of the whole rollup (${days} account-days, every account): ${secs(t0)}\n`);
  await zoneChange(ctx, raw, acc);
}

/** A change of the account's zone, which rebuilds its rollup rows in its transaction, and back to the zone it had. */
async function zoneChange(ctx: Ctx, raw: pg.Client, acc: KpiAccount) {
  const { rows } = await raw.query<{ z: string }>('SELECT time_zone AS z FROM accounts WHERE id = $1', [acc.accountId]);
  const times: string[] = [];
  for (const zone of [rows[0].z === 'Europe/Paris' ? 'UTC' : 'Europe/Paris', rows[0].z]) {
    const t = performance.now();
    await ctx.services.accounts.updateAccount(acc.seller, acc.accountId, { time_zone: zone });
    times.push(`${zone} ${secs(t)}`);
  }
  process.stdout.write(`zone change of the account (its days rebuilt in the change): ${times.join(', back to ')}\n`);
}
