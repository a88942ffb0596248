import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { randomPort, waitFor } from '../test/spawn.js';
import { benchAccount, postmasterPid, treeCpuSince } from './setup.js';

/**
 * `npm run bench -- http [leads=100000] [seconds=10]`: authenticated GET /api/web/1.0/leads with 50 connections
 * (autocannon) against the app's web processes (`app/main.ts --role web`, NODE_ENV=production, info logging), and
 * bare Express serving the same JSON body, in one run: first one process of each, then one per core (the app's
 * production shape: N web processes behind a load balancer; autocannon spreads its connections over their ports).
 * Prints req/s, p50, p99, the CPU per request of the serving processes and of PostgreSQL, and the ratios.
 * BENCH_CPU_PROF=<dir> profiles the app's web processes.
 */
const CONNECTIONS = 50;

type Started = { pid: number; kill: () => void; output: () => string };
type Served = { urls: string[]; pids: number[]; stop: () => void };

function startChild(args: string[], env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output = (output + d).slice(-4000)));
  return { pid: child.pid!, kill: () => child.kill('SIGTERM'), output: () => output };
}

/**
 * `n` processes started by `start(port)`, each answering `ready(port)` once up; then `settled(port)` is asked once
 * (the app loads its panel after it is ready: measured, that would be part of the figures).
 */
async function serve(
  n: number,
  start: (port: number) => Started,
  ready: (port: number) => string,
  settled = ready,
): Promise<Served> {
  const ports = Array.from({ length: n }, randomPort);
  const children = ports.map(start);
  for (const [i, port] of ports.entries()) {
    if (!(await waitFor(async () => (await fetch(ready(port))).ok, 60_000)))
      throw new Error(`a served process did not start: ${children[i].output()}`);
    await fetch(settled(port), { redirect: 'manual' });
  }
  return {
    urls: ports.map((p) => `http://127.0.0.1:${p}/api/web/1.0/leads`),
    pids: children.map((c) => c.pid),
    stop: () => children.forEach((c) => c.kill()),
  };
}

/**
 * req/s, p50 and p99, and the CPU time per request of the serving processes and of the database server (both counted
 * from /proc, so they stay meaningful when other work shares the machine).
 */
async function load(served: Served, headers: Record<string, string>, seconds: number, postgres: number | null) {
  const url = served.urls as unknown as string; // autocannon spreads its connections over several
  // a short warm-up: JIT, connection pools and caches as a running server has them
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const since = [...served.pids, ...(postgres ? [postgres] : [])].map(treeCpuSince);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  const used = since.map((s) => s());
  const node = used.slice(0, served.pids.length).reduce((a, b) => a + b, 0);
  const perRequest = [node, postgres ? used[used.length - 1] : 0].map((s) => (s * 1000) / r.requests.total);
  const failed = r.non2xx + r.errors + r.timeouts;
  if (failed) throw new Error(`${served.urls.join(' ')}: ${failed} failed requests of ${r.requests.total}`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMs: perRequest };
}
type Figures = Awaited<ReturnType<typeof load>>;

const line = (name: string, r: Figures) =>
  `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU per request: ` +
  `node ${r.cpuMs[0].toFixed(2)} ms${r.cpuMs[1] ? `, postgres ${r.cpuMs[1].toFixed(2)} ms` : ''}\n`;

async function fill(bench: Awaited<ReturnType<typeof benchAccount>>, leads: number): Promise<string> {
  const { ctx, actor, skus } = bench;
  for (let done = 0; done < leads; done += 1000)
    await ctx.services.leads.createMany(actor, {
      leads: Array.from({ length: Math.min(1000, leads - done) }, (_, i) => ({
        phone: `+2126${String(done + i).padStart(8, '0')}`,
        full_name: `Customer ${done + i}`,
        city: 'Casablanca',
        products: [{ sku: skus[0], quantity: 1, price: 100 }],
      })),
    });
  await ctx.db.sequelize.query('VACUUM ANALYZE leads');
  return (await ctx.services.tokens.createToken(actor, { name: 'http bench', scopes: ['VIEW LEADS'] })).token;
}

export async function run(args: string[]): Promise<void> {
  const leads = Number(args[0] ?? 100_000);
  const seconds = Number(args[1] ?? 10);
  const bench = await benchAccount();
  const { ctx } = bench;
  const postgres = postmasterPid(ctx);
  try {
    const headers = { authorization: `Bearer ${await fill(bench, leads)}`, accept: 'application/json' };
    const env = (port: number) => ({
      ...process.env,
      NODE_ENV: 'production',
      SESSION_SECRET: crypto.randomBytes(24).toString('hex'),
      LOG_LEVEL: 'info',
      DATABASE_URL: ctx.db.url,
      DATA_DIR: ctx.config.dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: String(1e9),
      RATE_LIMIT_ACCOUNT_PER_MINUTE: String(1e9),
    });
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const startApp = (port: number) =>
      startChild([...profile, '--import', 'tsx', 'app/main.ts', '--role', 'web'], env(port));
    const file = path.join(os.tmpdir(), `bench-http-${process.pid}.json`);
    const startBare = (port: number) =>
      startChild(['--import', 'tsx', 'bench/bare-express.ts', String(port), file], process.env);
    let out = '';
    for (const n of [...new Set([1, os.cpus().length])]) {
      const app = await serve(
        n,
        startApp,
        (port) => `http://127.0.0.1:${port}/health/ready`,
        (port) => `http://127.0.0.1:${port}/admin`,
      );
      const sample = await (await fetch(app.urls[0], { headers })).text();
      fs.writeFileSync(file, sample);
      const appFigures = await load(app, headers, seconds, postgres).finally(app.stop);
      const bare = await serve(n, startBare, (port) => `http://127.0.0.1:${port}/api/web/1.0/leads`);
      const bareFigures = await load(bare, headers, seconds, null).finally(bare.stop);
      out +=
        `${n} process${n > 1 ? 'es' : ''} each, ${sample.length} B body\n` +
        line('  app (bearer token, page + exact total)', appFigures) +
        line('  bare Express (same body)', bareFigures) +
        `  ratio ${(appFigures.rps / bareFigures.rps).toFixed(2)}\n`;
    }
    process.stdout.write(`GET /api/web/1.0/leads, ${CONNECTIONS} connections, ${seconds} s, ${leads} leads\n${out}`);
  } finally {
    await ctx.close();
  }
}
