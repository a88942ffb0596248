import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { systemActor } from '../src/actor.js';
import { exited, randomPort, runMain, waitFor } from '../test/spawn.js';
import { benchAccount } from './setup.js';

/**
 * `npm run bench -- soak [minutes=10]`: a web and a worker process (real `app/main.ts` children) under REST writes at
 * the rate limit across several tokens, order pushes to a carrier on 127.0.0.1 and spreadsheet imports, all at once.
 * Prints the request error rate, latency percentiles, the RSS of both processes after warm-up and at the end, and job
 * latency per priority (URGENT: push requested → pushed; IMPORTANT: import queued → started). Loopback only; bounded
 * to 1–60 minutes.
 */
const TOKENS = 5;
const PER_TOKEN_PER_MINUTE = 600;
const IMPORT_EVERY_MS = 30_000;
const IMPORT_ROWS = 2000;

const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] : NaN;
const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Finished one-off jobs leave agenda_jobs after this in the soak (a day in production): steady within minutes. */
const SOAK_JOBS_RETENTION_HOURS = '0.02';

/** Rows and on-disk size (table, indexes, TOAST) of agenda_jobs and the webhook tables. */
async function tableSizes(ctx: Awaited<ReturnType<typeof benchAccount>>['ctx']) {
  const [tables] = (await ctx.db.sequelize.query(
    `SELECT tablename AS name, pg_total_relation_size(format('%I', tablename)::regclass)::bigint AS bytes
       FROM pg_tables
      WHERE schemaname = current_schema() AND (tablename = 'agenda_jobs' OR tablename LIKE 'webhook%')
      ORDER BY 1`,
  )) as [{ name: string; bytes: number }[], unknown];
  const sizes = new Map<string, { rows: number; kb: number }>();
  for (const t of tables) {
    const [[{ n }]] = (await ctx.db.sequelize.query(`SELECT count(*)::int AS n FROM "${t.name}"`)) as [
      { n: number }[],
      unknown,
    ];
    sizes.set(t.name, { rows: n, kb: Math.round(t.bytes / 1024) });
  }
  return sizes;
}

export async function run(args: string[]): Promise<void> {
  const minutes = Math.min(60, Math.max(1, Number(args[0] ?? 10) || 10));
  const warmupMs = Math.min(60_000, minutes * 60_000 * 0.2);
  const { ctx, accountId, actor, skus } = await benchAccount();
  const sys = systemActor();
  const carrier = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () =>
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ tracking_number: `TRK-${JSON.parse(body).reference}` })),
        20,
      ),
    );
  });
  await new Promise<void>((r) => carrier.listen(0, '127.0.0.1', r));
  await ctx.services.shipping.createCompany(sys, {
    account_id: accountId,
    code: 'soak',
    name: 'Soak Carrier',
    hmac_secret: 'soak-secret-0123456789',
    endpoint_url: `http://127.0.0.1:${(carrier.address() as net.AddressInfo).port}/orders`,
  });
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    tokens.push(
      (
        await ctx.services.tokens.createToken(actor, {
          name: `soak ${i}`,
          scopes: ['CREATE LEADS', 'CREATE ORDERS', 'UPDATE ORDERS'],
        })
      ).token,
    );
  }
  const port = randomPort();
  const env = {
    DATABASE_URL: ctx.db.url,
    DATA_DIR: ctx.config.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    RATE_LIMIT_PER_MINUTE: String(PER_TOKEN_PER_MINUTE),
    // the account's tokens together: the soak measures the service, not the account budget
    RATE_LIMIT_ACCOUNT_PER_MINUTE: String(TOKENS * PER_TOKEN_PER_MINUTE),
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
    JOBS_RETENTION_HOURS: SOAK_JOBS_RETENTION_HOURS,
  };
  const web = runMain(env, ['--role', 'web']);
  const worker = runMain(env, ['--role', 'worker']);
  const base = `http://127.0.0.1:${port}/api/web/1.0`;
  try {
    if (!(await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200, 60_000)))
      throw new Error(`web did not start: ${web.output.text}`);
    if (!(await waitFor(async () => worker.output.text.includes('LeadFlow worker'), 60_000)))
      throw new Error(`worker did not start: ${worker.output.text}`);

    const started = Date.now();
    const end = started + minutes * 60_000;
    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    const pushRequested = new Map<string, number>();
    let warm: { web: number; worker: number } | null = null;
    let warmTables: Awaited<ReturnType<typeof tableSizes>> | null = null;
    const count = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);
    const call = async (token: string, method: string, p: string, body: unknown) => {
      const t0 = performance.now();
      try {
        const res = await fetch(`${base}${p}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = await res.json().catch(() => null);
        latencies.push(performance.now() - t0);
        count(String(res.status));
        return { status: res.status, body: json };
      } catch {
        count('connection error');
        return { status: 0, body: null };
      }
    };
    let n = 0;
    const lead = () => ({
      phone: `+2126${String(n++ % 1e8).padStart(8, '0')}`,
      full_name: `Soak ${n}`,
      city: 'Fes',
      address: 'Rue 1',
      products: [{ sku: skus[n % skus.length], quantity: 1, price: 100 }],
    });

    // Each token writes just under its limit: leads mostly, and every tenth request new orders that are then pushed.
    const writer = async (token: string) => {
      const gap = 60_000 / PER_TOKEN_PER_MINUTE / 0.95;
      for (let i = 0; Date.now() < end; i++) {
        const next = Date.now() + gap;
        if (i % 10 === 9) {
          const made = await call(token, 'POST', '/orders', { orders: [lead(), lead(), lead()] });
          await sleep(Math.max(0, next - Date.now()));
          if (made.status === 201) {
            const at = Date.now();
            const pushed = await call(token, 'POST', '/orders/push', {
              references: made.body.references,
              shipping_company: 'soak',
            });
            if (pushed.status === 200 || pushed.status === 202)
              for (const r of made.body.references) pushRequested.set(r, at);
          }
        } else {
          await call(token, 'POST', '/leads', { leads: [lead(), lead(), lead(), lead(), lead()] });
        }
        await sleep(Math.max(0, next + (i % 10 === 9 ? gap : 0) - Date.now()));
      }
    };
    const csv = path.join(ctx.config.dataDir, 'soak-import.csv');
    fs.writeFileSync(
      csv,
      [
        'phone,full_name,city,sku,quantity,price',
        ...Array.from(
          { length: IMPORT_ROWS },
          (_, i) => `+2127${String(i).padStart(8, '0')},Import ${i},Fes,${skus[0]},1,100`,
        ),
      ].join('\n'),
    );
    const importer = async () => {
      while (Date.now() < end) {
        const copy = `${csv}.${Date.now()}.upload`;
        fs.copyFileSync(csv, copy);
        await ctx.services.imports.start(actor, { path: copy, originalname: 'soak.csv', size: fs.statSync(copy).size });
        await sleep(IMPORT_EVERY_MS);
      }
    };
    const sampler = (async () => {
      await sleep(warmupMs);
      warm = { web: rssMb(web.pid!), worker: rssMb(worker.pid!) };
      warmTables = await tableSizes(ctx);
    })();
    await Promise.all([...tokens.map(writer), importer(), sampler]);
    const last = { web: rssMb(web.pid!), worker: rssMb(worker.pid!) };
    const lastTables = await tableSizes(ctx);
    // Let the queue empty before job latencies are read.
    await waitFor(
      async () => (await ctx.models.Order.count({ where: { account_id: accountId, status: 'new' } })) === 0,
      60_000,
    );

    const [pushes] = (await ctx.db.sequelize.query(
      `SELECT reference, pushed_at FROM orders WHERE account_id = ${accountId} AND pushed_at IS NOT NULL`,
    )) as [{ reference: string; pushed_at: Date }[], unknown];
    const urgent = pushes
      .filter((p) => pushRequested.has(p.reference))
      .map((p) => new Date(p.pushed_at).getTime() - pushRequested.get(p.reference)!);
    const [imports] = (await ctx.db.sequelize.query(
      `SELECT created_at, started_at, finished_at, status FROM import_runs WHERE account_id = ${accountId}`,
    )) as [{ created_at: Date; started_at: Date | null; finished_at: Date | null; status: string }[], unknown];
    const important = imports
      .filter((r) => r.started_at)
      .map((r) => new Date(r.started_at!).getTime() - new Date(r.created_at).getTime());
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    const errors = [...statuses.entries()]
      .filter(([k]) => !['200', '201', '202', '429'].includes(k))
      .reduce((a, [, v]) => a + v, 0);
    const growth = (k: 'web' | 'worker') =>
      `${warm![k]} → ${last[k]} MB (${(((last[k] - warm![k]) / warm![k]) * 100).toFixed(1)} %)`;
    const lines = [
      `soak ${minutes} min, ${TOKENS} tokens at ${PER_TOKEN_PER_MINUTE}/min each, ` +
        `an import of ${IMPORT_ROWS} rows every ${IMPORT_EVERY_MS / 1000} s, pushes to a carrier answering in 20 ms`,
      `requests: ${total} (${(total / ((Date.now() - started) / 1000)).toFixed(1)}/s), ` +
        `by status ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `error rate ${((errors / Math.max(1, total)) * 100).toFixed(3)} % (goal 0)`,
      `latency: p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms, ` +
        `max ${Math.max(...latencies).toFixed(1)} ms`,
      `RSS after ${Math.round(warmupMs / 1000)} s warm-up → end: web ${growth('web')}, worker ${growth('worker')} ` +
        '(goal: growth under 10 %)',
      `job latency URGENT (push requested → pushed), ${urgent.length} orders: p50 ${pct(urgent, 0.5)} ms, ` +
        `p99 ${pct(urgent, 0.99)} ms, max ${Math.max(...urgent)} ms`,
      `job latency IMPORTANT (import queued → started), ${important.length} of ${imports.length} imports: ` +
        `p50 ${pct(important, 0.5)} ms, max ${Math.max(...important)} ms; ` +
        `${imports.filter((r) => r.status === 'completed').length} completed`,
      `tables after warm-up → end (rows, size; finished jobs kept ${Number(SOAK_JOBS_RETENTION_HOURS) * 3600} s): ` +
        [...lastTables.entries()]
          .map(([t, end]) => {
            const w = warmTables!.get(t)!;
            return `${t} ${w.rows} → ${end.rows} rows, ${w.kb} → ${end.kb} kB`;
          })
          .join('; '),
    ];
    process.stdout.write(lines.join('\n') + '\n');
    fs.rmSync(csv, { force: true });
  } finally {
    for (const c of [web, worker]) c.kill('SIGTERM');
    await Promise.all([exited(web), exited(worker)]);
    carrier.close();
    await ctx.close();
  }
}
