import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { startWebServer } from '../app/server.js';
import { systemActor } from '../src/actor.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * What an anonymous visitor can make the web process hold (issue 40, findings 1 and 2), measured in one run:
 * - `/metrics` size and the process's memory before and after `requests` (default 20,000) requests with random form
 *   keys (OPTIONS and POST, half each), and whether any key reached a label;
 * - the intake log's size (its table and indexes) before and after `posts` (default 2,000) posts of 61 KB from one
 *   address to one real form source.
 * The web app runs in this process (its requests over loopback HTTP, 16 at a time); memory is heap used after a
 * collection when Node runs with --expose-gc, else the resident size. Own embedded database under BENCH_DATA_DIR
 * (default ./data/bench), or BENCH_DATABASE_URL.
 */
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

function memory(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    return process.memoryUsage().heapUsed;
  }
  return process.memoryUsage().rss;
}

async function inParallel(total: number, width: number, one: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < total) await one(next++);
    }),
  );
}

export async function run(args: string[]): Promise<void> {
  const requests = Number(args[0] ?? 20_000);
  const posts = Number(args[1] ?? 2_000);
  const ctx = await benchContext({ METRICS_TOKEN: 'bench-metrics-token' });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${(web.server.address() as AddressInfo).port}`;
  const metrics = async () =>
    (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer bench-metrics-token' } })).text();
  try {
    // warm-up: every route the flood takes, once
    await fetch(`${base}/api/web/1.0/intake/forms/warmup`, { method: 'POST' }).then((r) => r.arrayBuffer());
    const before = { metrics: (await metrics()).length, memory: memory() };
    const keys: string[] = [];
    const flood = () =>
      inParallel(requests, 16, async (i) => {
        const key = crypto.randomBytes(12).toString('hex');
        if (i < 50) keys.push(key);
        const res = await fetch(`${base}/api/web/1.0/intake/forms/${key}`, {
          method: i % 2 ? 'POST' : 'OPTIONS',
          headers: { 'content-type': 'application/json' },
          body: i % 2 ? '{}' : undefined,
        });
        await res.arrayBuffer();
      });
    // twice: what the first round leaves may be warm-up (code, pools); a leak grows again in the second
    await flood();
    const once = memory();
    await flood();
    const text = await metrics();
    const after = { metrics: text.length, memory: memory() };
    const leaked = keys.filter((k) => text.includes(k)).length;
    process.stdout.write(
      `2 × ${requests} requests with random form keys: /metrics ${kb(before.metrics)} -> ${kb(after.metrics)} ` +
        `(+${kb(after.metrics - before.metrics)}); memory ${mb(before.memory)} -> ${mb(once)} after the first, ` +
        `${mb(after.memory)} after the second (${(globalThis as { gc?: unknown }).gc ? 'heap after gc' : 'rss'}); ` +
        `keys in /metrics: ${leaked} of 100 sampled\n`,
    );

    const { accountId, skus } = await seedAccount(ctx, { tag: 'public' });
    const source = await ctx.services.sources.create(systemActor(), {
      account_id: accountId,
      kind: 'form',
      name: 'Bench form',
      default_products: [{ sku: skus[0], quantity: 1 }],
    });
    const size = async () =>
      Number(
        (
          await ctx.db.sequelize.query<{ n: string }>("SELECT pg_total_relation_size('lead_intake') AS n", {
            type: QueryTypes.SELECT,
          })
        )[0].n,
      );
    const logBefore = await size();
    const body = JSON.stringify({ full_name: 'Flood', phone: '0612345678', note: 'x'.repeat(61_000) });
    const statuses = new Map<number, number>();
    await inParallel(posts, 8, async () => {
      const res = await fetch(`${base}/api/web/1.0/intake/forms/${source.public_key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    });
    await ctx.db.sequelize.query('VACUUM lead_intake');
    const logAfter = await size();
    const answers = JSON.stringify(Object.fromEntries(statuses));
    process.stdout.write(
      `${posts} posts of 61 KB from one address to one form (answers ${answers}): ` +
        `intake log ${kb(logBefore)} -> ${kb(logAfter)} (+${kb(logAfter - logBefore)})\n`,
    );
  } finally {
    await web.close();
    await ctx.close();
  }
}
