import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { randomPort, waitFor } from '../test/spawn.js';
import { benchAccount, postmasterPid, treeCpuSeconds } from './setup.js';

/**
 * `npm run bench -- http [leads=100000] [seconds=10]`: authenticated GET /api/web/1.0/leads with 50 connections
 * (autocannon) against a web process (`app/main.ts --role web`, production logging), and bare Express serving the
 * same JSON body from a process of its own, in one run. Prints req/s, p50 and p99 of both and the ratio.
 * BENCH_CPU_PROF=<dir> profiles the web process.
 */
const CONNECTIONS = 50;

type Started = { pid: number; kill: () => void; output: () => string };

function startChild(args: string[], env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output = (output + d).slice(-4000)));
  return { pid: child.pid!, kill: () => child.kill('SIGTERM'), output: () => output };
}

/**
 * req/s, p50 and p99, and the CPU time per request of the serving process and of the database server (both counted
 * from /proc, so they stay meaningful when other work shares the machine).
 */
async function load(url: string, headers: Record<string, string>, seconds: number, pids: (number | null)[]) {
  // a short warm-up: JIT, connection pools and caches as a running server has them
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const cpu = () => pids.map((pid) => (pid ? treeCpuSeconds(pid) : 0));
  const before = cpu();
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  const perRequest = cpu().map((s, i) => ((s - before[i]) * 1000) / r.requests.total);
  const failed = r.non2xx + r.errors + r.timeouts;
  if (failed) throw new Error(`${url}: ${failed} failed requests of ${r.requests.total}`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMs: perRequest };
}

export async function run(args: string[]): Promise<void> {
  const leads = Number(args[0] ?? 100_000);
  const seconds = Number(args[1] ?? 10);
  const { ctx, actor, skus } = await benchAccount();
  const children: Started[] = [];
  try {
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
    const token = (await ctx.services.tokens.createToken(actor, { name: 'http bench', scopes: ['VIEW LEADS'] })).token;
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

    const port = randomPort();
    const env = {
      ...process.env,
      DATABASE_URL: ctx.db.url,
      DATA_DIR: ctx.config.dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: String(1e9),
    };
    // BENCH_CPU_PROF=<dir>: the web process writes a CPU profile there when it stops
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    children.push(startChild([...profile, '--import', 'tsx', 'app/main.ts', '--role', 'web'], env));
    const url = `http://127.0.0.1:${port}/api/web/1.0/leads`;
    if (!(await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok, 60_000)))
      throw new Error(`web did not start: ${children[0].output()}`);
    const sample = await (await fetch(url, { headers })).text();
    const app = await load(url, headers, seconds, [children[0].pid, postmasterPid(ctx)]);

    const file = path.join(os.tmpdir(), `bench-http-${process.pid}.json`);
    fs.writeFileSync(file, sample);
    const barePort = randomPort();
    children.push(startChild(['--import', 'tsx', 'bench/bare-express.ts', String(barePort), file], process.env));
    const bareUrl = `http://127.0.0.1:${barePort}/api/web/1.0/leads`;
    if (!(await waitFor(async () => (await fetch(bareUrl)).ok, 30_000)))
      throw new Error(`bare Express did not start: ${children[1].output()}`);
    const bare = await load(bareUrl, headers, seconds, [children[1].pid]);

    const line = (name: string, r: typeof app) =>
      `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU per request: ` +
      `node ${r.cpuMs[0].toFixed(2)} ms${r.cpuMs.length > 1 ? `, postgres ${r.cpuMs[1].toFixed(2)} ms` : ''}\n`;
    process.stdout.write(
      `GET /api/web/1.0/leads, ${CONNECTIONS} connections, ${seconds} s, ${leads} leads, ${sample.length} B body\n` +
        line('app (bearer token, page + exact total)', app) +
        line('bare Express (same body)', bare) +
        `ratio ${(app.rps / bare.rps).toFixed(2)}\n`,
    );
  } finally {
    for (const c of children) c.kill();
    await ctx.close();
  }
}
