import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/**
 * `npm run bench -- panel-load [--against REF] [--runs N]`: the panel over a slow link, this tree against REF
 * (default e8c9507, before issue 41), side by side. Each tree starts as a newcomer starts it (`npm start`'s command,
 * its own embedded database under data/bench-panel/, the demo seller it prints); REF is checked out in a git worktree
 * that borrows this tree's node_modules. Chromium (CHROMIUM_PATH, default /usr/bin/chromium) then opens the demo
 * seller's leads list with the network throttled to 10 Mbit/s and 40 ms round trips: a first visit (empty cache) and
 * a repeat visit (same browser profile), runs interleaved between the trees. It prints, per tree and visit, the median
 * bytes transferred (encoded, as on the wire), the requests and the time from navigation to a usable list (its first
 * row shown), and the ratios this tree / REF.
 */
const LINK = { offline: false, latency: 40, downloadThroughput: 10_000_000 / 8, uploadThroughput: 10_000_000 / 8 };
const ROOT = path.resolve('data/bench-panel');

type Tree = {
  label: string;
  dir: string;
  url: string;
  seller: { email: string; password: string };
  proc: ChildProcess;
};
type Visit = { bytes: number; requests: number; ms: number };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The tree at REF, in a worktree under data/bench-panel/ with this tree's node_modules. */
function checkout(ref: string): string {
  const dir = path.join(ROOT, `tree-${ref.replace(/[^\w.-]/g, '_')}`);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { stdio: 'inherit' });
    const made = spawnSync('git', ['worktree', 'add', '--detach', dir, ref], { stdio: 'inherit' });
    if (made.status !== 0) throw new Error(`git worktree add ${ref} failed`);
  }
  const modules = path.join(dir, 'node_modules');
  if (!fs.existsSync(modules)) fs.symlinkSync(path.resolve('node_modules'), modules);
  return dir;
}

/** Starts a tree with `npm start`'s command on a fresh data dir; resolves once it is ready, with its demo seller. */
async function start(label: string, dir: string): Promise<Tree> {
  const port = await freePort();
  const dataDir = path.join(ROOT, `data-${label}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, SEED_DEMO: '1' };
  for (const key of ['NODE_ENV', 'DATABASE_URL', 'ADMIN_JS_TMP_DIR', 'ADMIN_JS_SKIP_BUNDLE']) delete env[key];
  const proc = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], { cwd: dir, env, stdio: 'pipe' });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    const seller = /Demo seller:\s+(\S+) \/ (\S+)/.exec(out);
    const ready =
      seller &&
      (await fetch(`${url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      ));
    if (seller && ready) return { label, dir, url, seller: { email: seller[1], password: seller[2] }, proc };
    if (proc.exitCode !== null) throw new Error(`${label} exited: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${label} did not start: ${out.slice(-2000)}`);
}

async function signIn(browser: Browser, tree: Tree): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${tree.url}/login`);
  await page.fill('#email', tree.seller.email);
  await page.fill('#password', tree.seller.password);
  await Promise.all([page.waitForURL(/\/admin/, { waitUntil: 'commit' }), page.click('button[type=submit]')]);
  await page.close();
  return context;
}

/** One visit of the leads list on the throttled link, in `context` (its cache as earlier visits left it). */
async function visit(context: BrowserContext, tree: Tree): Promise<Visit> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', LINK);
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
    bytes += e.encodedDataLength;
    requests += 1;
  });
  const t0 = performance.now();
  await page.goto(`${tree.url}/admin/resources/leads`, { waitUntil: 'commit', timeout: 300_000 });
  await page.waitForSelector('[data-css="leads-table-row"]', { timeout: 300_000 });
  const ms = performance.now() - t0;
  await page.waitForLoadState('networkidle', { timeout: 60_000 }).catch(() => undefined);
  await page.close();
  return { bytes, requests, ms };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

function report(results: Map<string, { first: Visit[]; repeat: Visit[] }>, base: string, head: string): void {
  const row = (label: string, kind: 'first' | 'repeat') => {
    const v = results.get(label)![kind];
    return {
      bytes: median(v.map((x) => x.bytes)),
      requests: median(v.map((x) => x.requests)),
      ms: median(v.map((x) => x.ms)),
    };
  };
  for (const kind of ['first', 'repeat'] as const) {
    const [b, h] = [row(base, kind), row(head, kind)];
    process.stdout.write(
      `${kind} visit: ${base} ${mb(b.bytes)} in ${b.requests} requests, usable list ${(b.ms / 1000).toFixed(2)} s; ` +
        `${head} ${mb(h.bytes)} in ${h.requests} requests, ${(h.ms / 1000).toFixed(2)} s; ` +
        `ratio bytes ${(h.bytes / b.bytes).toFixed(3)}, time ${(h.ms / b.ms).toFixed(3)}\n`,
    );
  }
}

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: string) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
  };
  const ref = flag('--against', 'e8c9507');
  const runs = Number(flag('--runs', '3'));
  fs.mkdirSync(ROOT, { recursive: true });
  const trees: Tree[] = [];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    trees.push(await start(ref, checkout(ref)));
    trees.push(await start('this tree', process.cwd()));
    const results = new Map(trees.map((t) => [t.label, { first: [] as Visit[], repeat: [] as Visit[] }]));
    // one visit of each tree before the runs: each builds its panel (AdminJS bundles the components on the first)
    for (const t of trees) await visit(await signIn(browser, t), t);
    for (let i = 0; i < runs; i++) {
      for (const t of trees) {
        const context = await signIn(browser, t);
        results.get(t.label)!.first.push(await visit(context, t));
        results.get(t.label)!.repeat.push(await visit(context, t));
        await context.close();
        process.stdout.write(`run ${i + 1} ${t.label}: ${JSON.stringify(results.get(t.label)!.first.at(-1))}\n`);
      }
    }
    report(results, ref, 'this tree');
  } finally {
    await browser.close();
    for (const t of trees) t.proc.kill('SIGTERM');
    await Promise.all(
      trees.map((t) => new Promise((r) => (t.proc.exitCode !== null ? r(null) : t.proc.on('exit', r)))),
    );
  }
}
