import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { QueryTypes } from 'sequelize';
import { createJobSystem } from '../jobs/agenda.js';
import { deliverWebhooksJob } from '../jobs/webhooks.job.js';
import { startWebServer } from '../app/server.js';
import type { AppContext } from '../app/context.js';
import { startDeadReceiver, startReceiver, type Receiver } from '../test/webhook-receiver.js';
import { benchContext, seedAccount } from './setup.js';

/**
 * Issue 29, side by side in one run: the time of a REST request of 1,000 leads with 1 and with 10 subscribed
 * endpoints (and the rows it writes), then account Y's delivery latency through a worker running the delivery job,
 * alone, with account X's two endpoints on a receiver that never answers (40 leads queued), and with X's receiver
 * answering in 2.5 s (24 queued). Own embedded database under BENCH_DATA_DIR (default ./data/bench), or
 * BENCH_DATABASE_URL.
 */
const EVENTS = ['lead.created', 'lead.status_changed'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;

async function account(ctx: AppContext, tag: string) {
  const acc = await seedAccount(ctx, { tag, skus: ['B-1'], scopes: ['CREATE LEADS'] });
  return { id: acc.accountId, actor: acc.actor, token: acc.token };
}
type Account = Awaited<ReturnType<typeof account>>;

const leadItems = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    phone: phone(),
    full_name: `Customer ${i}`,
    products: [{ sku: 'B-1', quantity: 1, price: 100 }],
  }));

const count = async (ctx: AppContext, table: string, accountId: number) =>
  (
    await ctx.db.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, {
      bind: [accountId],
      type: QueryTypes.SELECT,
    })
  )[0].n;

async function removeEndpoints(ctx: AppContext, acc: Account) {
  for (const e of (await ctx.services.webhooks.list(acc.actor)).data)
    await ctx.services.webhooks.remove(acc.actor, e.id);
}

/** Median time of three 1,000-lead POSTs with `endpoints` subscribed endpoints, and the rows the last one wrote. */
async function restRequest(ctx: AppContext, url: string, receiver: Receiver, endpoints: number) {
  const acc = await account(ctx, `rest-${endpoints}`);
  for (let i = 0; i < endpoints; i++)
    await ctx.services.webhooks.create(acc.actor, { url: receiver.url(`/bench-${i}`), events: EVENTS });
  const times: number[] = [];
  let rows = '';
  for (let run = 0; run < 3; run++) {
    const [events, deliveries] = [
      await count(ctx, 'webhook_events', acc.id),
      await count(ctx, 'webhook_deliveries', acc.id),
    ];
    const t = performance.now();
    const res = await fetch(`${url}/leads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acc.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ leads: leadItems(1000) }),
    });
    times.push(performance.now() - t);
    if (res.status !== 201) throw new Error(`POST /leads answered ${res.status}: ${await res.text()}`);
    rows =
      `+${(await count(ctx, 'webhook_events', acc.id)) - events} events, ` +
      `+${(await count(ctx, 'webhook_deliveries', acc.id)) - deliveries} deliveries in the request`;
  }
  await removeEndpoints(ctx, acc);
  return `${median(times).toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')} ms; ${rows})`;
}

/** Y's delivery latency (five leads, one at a time) while X's backlog on `xUrls` is being sent. */
async function latencyOfY(ctx: AppContext, receiver: Receiver, xUrls: string[], xLeads: number, xBusy: () => boolean) {
  const [x, y] = [await account(ctx, 'x'), await account(ctx, 'y')];
  for (const url of xUrls) await ctx.services.webhooks.create(x.actor, { url, events: EVENTS });
  if (xLeads) await ctx.services.leads.createMany(x.actor, { leads: leadItems(xLeads) });
  for (let t = Date.now(); !xBusy() && Date.now() - t < 20_000;) await sleep(20);
  const path = `/y-${crypto.randomUUID()}`;
  await ctx.services.webhooks.create(y.actor, { url: receiver.url(path), events: EVENTS });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await ctx.services.leads.createMany(y.actor, { leads: leadItems(1) });
    while (receiver.at(path).length <= i && performance.now() - t < 300_000) await sleep(5);
    times.push(performance.now() - t);
  }
  await removeEndpoints(ctx, x);
  await removeEndpoints(ctx, y);
  return `median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`;
}

export async function run(): Promise<void> {
  const ctx = await benchContext({
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  });
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  const receiver = await startReceiver();
  const dead = await startDeadReceiver();
  const jobs = await createJobSystem(ctx.config, ctx.db.url, ctx.logger, ctx.metrics);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  try {
    const url = `http://127.0.0.1:${web.port}/api/web/1.0`;
    out('REST POST /leads, 1,000 leads (median of 3):');
    out(`  1 subscribed endpoint:   ${await restRequest(ctx, url, receiver, 1)}`);
    out(`  10 subscribed endpoints: ${await restRequest(ctx, url, receiver, 10)}`);
    await jobs.startWorker(ctx, [deliverWebhooksJob]);
    const c = ctx.config;
    out(`Account Y's delivery latency, one worker (WEBHOOK_TIMEOUT_MS ${c.webhookTimeoutMs}, `);
    out(`  WEBHOOK_CONCURRENCY ${c.webhookConcurrency}, WEBHOOK_ACCOUNT_IN_FLIGHT ${c.webhookAccountInFlight}):`);
    out(`  alone:                                    ${await latencyOfY(ctx, receiver, [], 0, () => true)}`);
    const deadUrls = [dead.url('/dead-1'), dead.url('/dead-2')];
    const deadBusy = () => dead.requests() >= 2;
    out(`  X: 2 endpoints never answering, 40 leads: ${await latencyOfY(ctx, receiver, deadUrls, 40, deadBusy)}`);
    receiver.answerWith((r) => (r.path === '/slow' ? sleep(2500).then(() => 200) : 200));
    const slowBusy = () => receiver.at('/slow').length >= 1;
    const slowUrls = [receiver.url('/slow')];
    out(`  X: answers in 2.5 s, 24 leads:            ${await latencyOfY(ctx, receiver, slowUrls, 24, slowBusy)}`);
  } finally {
    await dead.close();
    await jobs.close();
    await receiver.close();
    await web.close();
    await ctx.close();
  }
}
