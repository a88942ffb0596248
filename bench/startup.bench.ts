import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILED_MAIN, ensureBuild, withoutLoader } from '../test/build.js';
import { exited, randomPort } from '../test/spawn.js';

/**
 * `npm run bench -- startup [rounds=5] [role=all]`: restart to ready of the production process, compiled
 * (`node dist/app/main.js`, built first when dist/ is stale) against the tsx start (`tsx app/main.ts`, what
 * `npm start` runs), side by side on one embedded data directory that already holds its data: the time from spawn to
 * the first `GET /health/ready` answering 200, polled every 10 ms, rounds alternating. Prints the median, min and max
 * of each, the process's own "ready in" figure, the ratio, and the first start on the empty data directory.
 */
const DATA_DIR = path.resolve('data', 'bench-startup');
const TSX_CLI = fileURLToPath(import.meta.resolve('tsx/cli'));
const STARTS = {
  tsx: { label: 'tsx app/main.ts', args: [TSX_CLI, 'app/main.ts'] },
  compiled: { label: `node ${COMPILED_MAIN}`, args: [COMPILED_MAIN] },
};
type Start = keyof typeof STARTS;
type Timing = { readyMs: number; reportedMs: number };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function untilReady(url: string, alive: () => boolean, output: () => string): Promise<void> {
  for (const end = Date.now() + 120_000; Date.now() < end;) {
    if (!alive()) throw new Error(`the process exited before it was ready:\n${output()}`);
    if ((await fetch(url).catch(() => null))?.status === 200) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not ready after 120 s:\n${output()}`);
}

/** Spawns one start, waits for ready, stops it with SIGTERM and waits for its exit (and its PostgreSQL's stop). */
async function timeStart(start: Start, role: string): Promise<Timing> {
  const port = randomPort();
  const env = {
    ...withoutLoader(process.env),
    NODE_ENV: 'production',
    SESSION_SECRET: 'bench-startup-secret-0123456789abcdef',
    DATA_DIR,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    PASSWORD_HASH_COST: 'fast',
  };
  const started = performance.now();
  const child = spawn(process.execPath, [...STARTS[start].args, '--role', role], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    await untilReady(
      `http://127.0.0.1:${port}/health/ready`,
      () => child.exitCode === null,
      () => output,
    );
    const readyMs = performance.now() - started;
    // main prints its own figure (process uptime) once the worker runs too, a moment after the web server answers
    for (let i = 0; i < 500 && !/ready in \d+ ms/.test(output); i++) await new Promise((r) => setTimeout(r, 10));
    return { readyMs, reportedMs: Number(/ready in (\d+) ms/.exec(output)?.[1] ?? NaN) };
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }
}

function line(label: string, timings: Timing[]): string {
  const ready = timings.map((t) => t.readyMs);
  return (
    `${label.padEnd(28)} median ${Math.round(median(ready))} ms (min ${Math.round(Math.min(...ready))}, ` +
    `max ${Math.round(Math.max(...ready))}); the process says ready in ${median(timings.map((t) => t.reportedMs))} ms\n`
  );
}

export async function run(args: string[]): Promise<void> {
  const rounds = Math.max(1, Number(args[0] ?? 5) || 5);
  const role = args[1] ?? 'all';
  const build = ensureBuild();
  process.stdout.write(build ? `npm run build: ${(build.ms / 1000).toFixed(1)} s\n` : 'dist/ is fresh: not rebuilt\n');
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  const first = await timeStart('compiled', role);
  process.stdout.write(
    `first start on an empty DATA_DIR (initdb, migrations, seed), compiled: ${Math.round(first.readyMs)} ms\n`,
  );
  // one unmeasured restart of each: the page cache holds both sets of files, as on a server that restarts
  await timeStart('tsx', role);
  await timeStart('compiled', role);
  const timings: Record<Start, Timing[]> = { tsx: [], compiled: [] };
  for (let i = 0; i < rounds; i++)
    for (const start of i % 2 ? (['compiled', 'tsx'] as const) : (['tsx', 'compiled'] as const))
      timings[start].push(await timeStart(start, role));
  const tsx = median(timings.tsx.map((t) => t.readyMs));
  const compiled = median(timings.compiled.map((t) => t.readyMs));
  process.stdout.write(
    `restart to ready (spawn → GET /health/ready 200), role ${role}, embedded PostgreSQL with data, ` +
      `${rounds} rounds each, NODE_ENV=production\n` +
      line(STARTS.tsx.label, timings.tsx) +
      line(STARTS.compiled.label, timings.compiled) +
      `ratio compiled / tsx ${(compiled / tsx).toFixed(2)}; goal ≤ 1500 ms: ${compiled <= 1500 ? 'met' : 'not met'}\n`,
  );
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
}
