import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startWebServer } from '../app/server.js';
import { kpiAccount } from './kpi-fill.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * One seller's settings saves against another tenant's writes (issue 40, finding 3). Account A holds `total` leads
 * (default 150,000; kpi-fill.ts) and changes its time zone; account B posts one lead at a time to the real HTTP app
 * (POST /leads) throughout. Two phases, side by side in one run: A saves 10 times one after another,
 * then 30 times at once; in both, two loops run the worker's jobs (the zone rebuilds the saves ask for, and the
 * fold), which recompute A's days out of band. Printed: B's writes, p50 and p99, A's saves kept and refused, and
 * the ratio of the p99s.
 * Own embedded database under BENCH_DATA_DIR (default ./data/bench), or BENCH_DATABASE_URL.
 */
const ZONES = ['Europe/Paris', 'UTC', 'Africa/Casablanca'];

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

export async function run(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 150_000);
  const ctx = await benchContext({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000' });
  const raw = new pg.Client({ connectionString: ctx.db.url });
  await raw.connect();
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  try {
    const a = await kpiAccount(ctx, raw, total);
    await ctx.services.kpi.fold();
    const b = await seedAccount(ctx, { tag: 'settings B', scopes: ['CREATE LEADS'] });
    const url = `http://127.0.0.1:${(web.server.address() as AddressInfo).port}/api/web/1.0/leads`;
    let n = 0;
    const save = (i: number) =>
      ctx.services.accounts.updateAccount(a.seller, a.accountId, { time_zone: ZONES[i % ZONES.length] }).then(
        () => 'kept',
        (err: Error) => err.constructor.name,
      );

    const phase = async (label: string, saves: () => Promise<string[]>) => {
      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      let running = true;
      const writer = (async () => {
        while (running) {
          const t = performance.now();
          const res = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              leads: [
                {
                  phone: `+2126${String(10_000_000 + n++).slice(-8)}`,
                  full_name: 'Tenant B',
                  city: 'Fes',
                  products: [{ sku: 'B-1', quantity: 1, price: 100 }],
                },
              ],
            }),
          });
          await res.arrayBuffer();
          latencies.push(performance.now() - t);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      })();
      // the worker's two jobs, each one run at a time: the zone rebuilds the saves ask for, and the fold
      const worker = (job: () => Promise<number>) =>
        (async () => {
          while (running) {
            await job();
            await new Promise((r) => setTimeout(r, 200));
          }
        })();
      const jobs = [worker(ctx.services.kpi.rebuildZones), worker(ctx.services.kpi.fold)];
      const t0 = performance.now();
      const outcomes = await saves();
      const savesMs = performance.now() - t0;
      // and until A's days are recomputed in its last zone
      while ((await raw.query('SELECT 1 FROM kpi_zone_rebuilds WHERE account_id = $1', [a.accountId])).rowCount)
        await new Promise((r) => setTimeout(r, 100));
      running = false;
      await Promise.all([writer, ...jobs]);
      const tally = outcomes.reduce<Record<string, number>>((m, o) => ({ ...m, [o]: (m[o] ?? 0) + 1 }), {});
      process.stdout.write(
        `${label}: A's saves ${JSON.stringify(tally)} in ${(savesMs / 1000).toFixed(1)} s; ` +
          `B's writes ${latencies.length} (${JSON.stringify(Object.fromEntries(statuses))}), ` +
          `p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms\n`,
      );
      return pct(latencies, 0.99);
    };

    const sequential = await phase('10 saves one after another', async () => {
      const out: string[] = [];
      for (let i = 0; i < 10; i++) out.push(await save(i));
      return out;
    });
    const concurrent = await phase('30 saves at once', () =>
      Promise.all(Array.from({ length: 30 }, (_, i) => save(i))),
    );
    process.stdout.write(`B's p99 with 30 saves at once / with 10 in a row: ${(concurrent / sequential).toFixed(2)}\n`);
  } finally {
    await web.close();
    await raw.end();
    await ctx.close();
  }
}
