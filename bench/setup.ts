import crypto from 'node:crypto';
import fs from 'node:fs';
import { systemActor, userActor, type Scope } from '../src/actor.js';
import { createAppContext, type AppContext } from '../app/context.js';
import { loadConfig } from '../src/config.js';

/**
 * A bench context on its own embedded database (BENCH_DATA_DIR, default ./data/bench), or BENCH_DATABASE_URL, with
 * the bench's settings and `settings` on top.
 */
export function benchContext(settings: Record<string, string> = {}): Promise<AppContext> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: process.env.BENCH_DATA_DIR ?? './data/bench',
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: 'fast',
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    ...settings,
  });
  return createAppContext(config, { database: 'leadflow_bench' });
}

/**
 * A fresh account (its name carries `tag`) with a seller (password bench-password) and the products `skus`, and an
 * API token for the seller when `scopes` are given.
 */
export async function seedAccount(
  ctx: AppContext,
  { tag = '', skus = ['B-1', 'B-2', 'B-3'], scopes = [] as Scope[] } = {},
) {
  const sys = systemActor();
  const stamp = `${Date.now()}-${crypto.randomInt(1e6)}`;
  const acc = await ctx.services.accounts.createAccount(sys, { name: ['Bench', tag, stamp].filter(Boolean).join(' ') });
  const u = await ctx.services.accounts.createUser(sys, {
    account_id: acc.id,
    role: 'seller',
    email: `bench-${stamp}@bench.local`,
    password: 'bench-password',
    name: 'Bench Seller',
  });
  const productIds: number[] = [];
  for (const sku of skus)
    productIds.push(
      (await ctx.services.catalogue.createProduct(sys, { account_id: acc.id, sku, name: sku, price: 100 })).id,
    );
  const token =
    scopes.length > 0
      ? (await ctx.services.tokens.createToken(sys, { user_id: u.id, name: 'bench', scopes })).token
      : '';
  return {
    accountId: acc.id,
    userId: u.id,
    actor: userActor({ id: u.id, account_id: acc.id, role: 'seller', name: u.name }),
    skus,
    productIds,
    token,
  };
}

/** A bench context (benchContext) with IMPORT_* raised for the big files, and a fresh account with three products. */
export async function benchAccount(): Promise<{
  ctx: AppContext;
  accountId: number;
  actor: ReturnType<typeof userActor>;
  skus: string[];
}> {
  const ctx = await benchContext({
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
    IMPORT_MAX_ROWS: '2000000',
    IMPORT_MAX_BYTES: String(500 * 1024 * 1024),
  });
  // The bench's own embedded database starts each run without the leads of earlier runs, so figures compare.
  if (ctx.db.embedded) {
    await ctx.db.sequelize.query(
      'TRUNCATE leads, lead_products, lead_histories, orders, order_products, order_histories, ' +
        'import_runs, import_run_errors, export_runs, stock_movements, stock_levels, stock_follows CASCADE',
    );
  }
  const { accountId, actor, skus } = await seedAccount(ctx);
  return { ctx, accountId, actor, skus };
}

/** Peak resident memory of this process so far, in MB (Linux reports maxRSS in KB). */
export const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** CPU seconds so far of this process and of every `postgres` process on the machine (Linux /proc; 0 elsewhere). */
export function cpuSeconds(): { node: number; postgres: number } {
  const node = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
  let postgres = 0;
  try {
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!stat.includes('(postgres)')) continue;
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        postgres += (Number(f[11]) + Number(f[12])) / 100;
      } catch {
        /* the process ended */
      }
    }
  } catch {
    /* no /proc */
  }
  return { node, postgres };
}

/** "node 4.1 s, postgres 9.0 s CPU" between two cpuSeconds() readings. */
export const cpuSplit = (a: ReturnType<typeof cpuSeconds>, b = cpuSeconds()) =>
  `CPU node ${(b.node - a.node).toFixed(1)} s, postgres ${(b.postgres - a.postgres).toFixed(1)} s`;

/** CPU seconds of process `pid` and of each of its children, and of its children that ended (reaped). */
function cpuOfTree(pid: number): { each: Map<number, number>; reaped: number } {
  const each = new Map<number, number>();
  let reaped = 0;
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      // after the name: f[1] the parent pid; f[11], f[12] user and system time in clock ticks (100 per second);
      // f[13], f[14] the time of children that ended (a backend whose connection closed)
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(p) !== pid && Number(f[1]) !== pid) continue;
      each.set(Number(p), (Number(f[11]) + Number(f[12])) / 100);
      if (Number(p) === pid) reaped = (Number(f[13]) + Number(f[14])) / 100;
    } catch {
      /* the process ended */
    }
  }
  return { each, reaped };
}

/**
 * Starts counting the CPU of process `pid` and its children (a web process; the embedded postmaster and its backends);
 * the function returned answers the seconds used since. A child that ended meanwhile counts with what it used after
 * the start (its whole time, reaped into the parent's, less what it had used before).
 */
export function treeCpuSince(pid: number): () => number {
  const start = cpuOfTree(pid);
  return () => {
    const end = cpuOfTree(pid);
    let used = end.reaped - start.reaped;
    for (const [p, s] of end.each) used += s - (start.each.get(p) ?? 0);
    for (const [p, s] of start.each) if (!end.each.has(p)) used -= s;
    return used;
  };
}

/** The pid of the bench's embedded postmaster (null on BENCH_DATABASE_URL). */
export function postmasterPid(ctx: AppContext): number | null {
  if (!ctx.db.embedded) return null;
  const file = `${ctx.config.dataDir}/pg/postmaster.pid`;
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').split('\n')[0]) : null;
}
