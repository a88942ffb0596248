/**
 * The suite's runner (`npm test`, `npm run test:ci`, `test:quick`, `test:timings`; docs/testing.md).
 *
 * It runs mocha in several processes at once ("shards"), each with its own database, DATA_DIR, Redis database, port
 * range and Chromium, so nothing one shard does can change another's. Files are dealt to shards longest first by the
 * times of test/timings.json. A mode is a database choice: `embedded` (no DATABASE_URL, an embedded server per shard)
 * or `url` (a database per shard on the server at TEST_DATABASE_URL, or DATABASE_URL). Which files a mode runs comes
 * from test/groups.ts: every file in the first mode, the `both` group in the second too.
 *
 *   node --import tsx test/run.ts [--modes embedded,url] [--jobs N] [--quick] [--timings] [--list] [file…]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PANEL_BUNDLE, buildIsFresh } from './build.js';
import { filesOfMode, testFiles, type Mode } from './groups.js';

interface FileReport {
  ms: number;
  tests: { title: string; state: 'passed' | 'failed' | 'skipped'; ms: number; error?: string }[];
}
interface ShardReport {
  wallMs: number;
  files: Record<string, FileReport>;
}
type Timings = Record<Mode, Record<string, number>>;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const TIMINGS = path.join(ROOT, 'test', 'timings.json');
const RUNS = path.join(ROOT, 'data', 'test-runs');
/** Files a mode has no timing for count this much when shards are dealt. */
const UNKNOWN_MS = 10_000;
/** `--quick`: the unit tests and the integration files that took at most this long in the last timings. */
const QUICK_FILE_MS = 25_000;

function parseArgs(argv: string[]) {
  const opts = {
    modes: [] as Mode[],
    jobs: 0,
    quick: false,
    timings: false,
    list: false,
    files: [] as string[],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--modes') opts.modes = argv[++i].split(',') as Mode[];
    else if (a === '--jobs') opts.jobs = Number(argv[++i]);
    else if (a === '--quick') opts.quick = true;
    else if (a === '--timings') opts.timings = true;
    else if (a === '--list') opts.list = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else opts.files.push(path.relative(ROOT, path.resolve(a)));
  }
  for (const m of opts.modes) if (m !== 'embedded' && m !== 'url') throw new Error(`unknown mode ${m}`);
  if (opts.modes.length === 0) opts.modes = [process.env.DATABASE_URL ? 'url' : 'embedded'];
  if (!Number.isInteger(opts.jobs) || opts.jobs < 0) throw new Error('--jobs takes a whole number');
  return opts;
}

function readTimings(): Timings {
  try {
    return JSON.parse(fs.readFileSync(TIMINGS, 'utf8')) as Timings;
  } catch {
    return { embedded: {}, url: {} };
  }
}

interface Shard {
  id: number;
  mode: Mode;
  files: string[];
  estimateMs: number;
}

/** Longest first onto the least loaded shard; each mode gets shards in proportion to its estimated time. */
export function dealShards(work: { mode: Mode; file: string; ms: number }[], jobs: number): Shard[] {
  const modes = [...new Set(work.map((w) => w.mode))];
  const total = (m: Mode) => work.filter((w) => w.mode === m).reduce((s, w) => s + w.ms, 0);
  const all = modes.reduce((s, m) => s + total(m), 0);
  const counts = new Map<Mode, number>();
  let left = Math.max(jobs, modes.length);
  modes.forEach((m, i) => {
    const n = i === modes.length - 1 ? left : Math.max(1, Math.round((jobs * total(m)) / (all || 1)));
    counts.set(m, Math.min(n, left - (modes.length - 1 - i)));
    left -= counts.get(m)!;
  });
  const shards: Shard[] = [];
  for (const m of modes) {
    const own = Array.from({ length: counts.get(m)! }, () => ({
      id: 0,
      mode: m,
      files: [] as string[],
      estimateMs: 0,
    }));
    for (const w of work.filter((x) => x.mode === m).sort((a, b) => b.ms - a.ms)) {
      const target = own.reduce((best, s) => (s.estimateMs < best.estimateMs ? s : best));
      target.files.push(w.file);
      target.estimateMs += w.ms;
    }
    shards.push(...own.filter((s) => s.files.length > 0));
  }
  shards.forEach((s, i) => (s.id = i + 1));
  return shards;
}

/** A database of its own for a `url` shard, made anew on the server of `base`. */
async function shardDatabase(base: string, id: number): Promise<string> {
  const url = new URL(base);
  const name = `${url.pathname.slice(1) || 'postgres'}_shard${id}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } catch (err) {
    throw new Error(
      `the url mode gives each shard a database of its own, and ${name} could not be made (${(err as Error).message}): ` +
        'use a role that may create databases, or --jobs 1 to run on the given database alone',
      { cause: err },
    );
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The panel's components bundled once for every shard (AdminJS would bundle them in each process that serves the panel,
 * a minute of CPU each): the build's when dist/ is fresh, otherwise one made under data/ from the sources.
 */
function panelBundle(): string {
  if (buildIsFresh()) return path.resolve(ROOT, path.dirname(PANEL_BUNDLE));
  const dir = path.join(ROOT, 'data', 'test-panel-bundle');
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-panel.ts', dir], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (made.status !== 0) throw new Error('the panel components could not be bundled (scripts/bundle-panel.ts)');
  return dir;
}

function shardEnv(shard: Shard, databaseUrl: string | null, bundleDir: string): NodeJS.ProcessEnv {
  const own = (name: string) => {
    const dir = path.join(ROOT, 'data', `test-${shard.id}-${name}`);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import tsx --no-experimental-require-module`.trim(),
    TEST_SHARD: String(shard.id),
    TEST_DATA_DIR: `./data/test-${shard.id}`,
    // what a child process the tests start without a DATA_DIR of its own writes (session secret, exports, mail); the
    // temporary files stay in the one TMPDIR, where tsx caches what it compiled for every process (tests name their
    // files with the process id)
    DATA_DIR: own('app'),
    ADMIN_JS_TMP_DIR: bundleDir,
    ADMIN_JS_SKIP_BUNDLE: 'true',
    TEST_REPORT_FILE: path.join(RUNS, `shard-${shard.id}.json`),
    // Redis has 16 databases: one per shard keeps their rate-limit counters apart
    TEST_REDIS_URL: `${(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379').replace(/\/\d*$/, '')}/${shard.id % 16}`,
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return env;
}

function runShard(shard: Shard, env: NodeJS.ProcessEnv): Promise<{ code: number; log: string }> {
  const logFile = path.join(RUNS, `shard-${shard.id}.log`);
  const out = fs.createWriteStream(logFile);
  const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const child = spawn(process.execPath, [mocha, '--reporter', 'test/timing-reporter.cjs', ...shard.files], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      out.end(() => resolve({ code: code ?? 1, log: fs.readFileSync(logFile, 'utf8') }));
    });
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const timings = readTimings();
  // a folder names every test file under it
  const chosen =
    opts.files.length > 0
      ? new Set(
          opts.files.flatMap((f) => {
            const under = testFiles().filter((t) => t.startsWith(`${f.replace(/\/$/, '')}/`));
            return under.length > 0 ? under : [f];
          }),
        )
      : null;
  const work: { mode: Mode; file: string; ms: number }[] = [];
  opts.modes.forEach((mode, i) => {
    for (const file of filesOfMode(i === 0 ? 'first' : 'second')) {
      if (chosen && !chosen.has(file)) continue;
      const ms = timings[mode]?.[file] ?? timings.embedded?.[file] ?? UNKNOWN_MS;
      if (opts.quick && !file.startsWith('test/unit/') && ms > QUICK_FILE_MS) continue;
      work.push({ mode, file, ms });
    }
  });
  if (chosen) for (const f of chosen) if (!testFiles().includes(f)) throw new Error(`not a test file: ${f}`);
  const jobs = opts.jobs || Number(process.env.TEST_JOBS) || Math.max(2, os.availableParallelism() * 2);
  const shards = dealShards(work, Math.min(jobs, work.length));
  if (opts.list) {
    for (const s of shards) console.log(`shard ${s.id} (${s.mode}, ~${seconds(s.estimateMs)}): ${s.files.join(' ')}`);
    return;
  }

  fs.rmSync(RUNS, { recursive: true, force: true });
  fs.mkdirSync(RUNS, { recursive: true });
  const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? null;
  if (opts.modes.includes('url') && !serverUrl)
    throw new Error(
      'the url mode needs TEST_DATABASE_URL or DATABASE_URL (a PostgreSQL server whose role may create databases)',
    );

  const started = Date.now();
  const bundleDir = panelBundle();
  console.log(
    `${work.length} files in ${shards.length} shards (${opts.modes.join(' + ')}), ${os.availableParallelism()} cores`,
  );
  // one database per `url` shard, made one after the other (CREATE DATABASE copies template1, which two at once may
  // find in use); a single `url` shard uses the database it was given, as a plain mocha run would
  const databases = new Map<number, string>();
  const urlShards = shards.filter((s) => s.mode === 'url');
  for (const s of urlShards)
    databases.set(s.id, urlShards.length > 1 ? await shardDatabase(serverUrl!, s.id) : serverUrl!);
  const results = await Promise.all(
    shards.map(async (shard) => {
      const t0 = Date.now();
      const { code, log } = await runShard(shard, shardEnv(shard, databases.get(shard.id) ?? null, bundleDir));
      const ms = Date.now() - t0;
      console.log(
        `\n==== shard ${shard.id} (${shard.mode}, ${shard.files.length} files): ${seconds(ms)}, exit ${code} ====`,
      );
      process.stdout.write(log);
      return { shard, code, ms };
    }),
  );

  // the reports: per file and mode, for the summary, the title lists and test/timings.json
  const byMode: Record<Mode, Record<string, FileReport>> = { embedded: {}, url: {} };
  let missing = 0;
  for (const { shard } of results) {
    const file = path.join(RUNS, `shard-${shard.id}.json`);
    if (!fs.existsSync(file)) {
      missing++;
      continue;
    }
    const report = JSON.parse(fs.readFileSync(file, 'utf8')) as ShardReport;
    Object.assign(byMode[shard.mode], report.files);
  }
  const count = (state: string) =>
    Object.values(byMode)
      .flatMap((files) => Object.values(files))
      .flatMap((f) => f.tests)
      .filter((t) => t.state === state).length;
  for (const mode of opts.modes) {
    const titles = Object.entries(byMode[mode])
      .flatMap(([file, f]) => f.tests.map((t) => `${file} :: ${t.title}`))
      .sort();
    fs.writeFileSync(path.join(RUNS, `titles-${mode}.txt`), titles.join('\n') + '\n');
  }
  if (opts.timings) writeTimings(byMode, results);

  const failed = results.filter((r) => r.code !== 0);
  console.log('\n==== summary ====');
  for (const r of results)
    console.log(
      `shard ${r.shard.id} (${r.shard.mode}): ${r.shard.files.length} files, ${seconds(r.ms)}, exit ${r.code}`,
    );
  if (count('failed') > 0) {
    console.log('\nfailed:');
    for (const [mode, files] of Object.entries(byMode))
      for (const [file, f] of Object.entries(files))
        for (const t of f.tests.filter((x) => x.state === 'failed')) {
          console.log(`  [${mode}] ${file}: ${t.title}`);
          // the cause too: a CI log may keep only its end
          if (t.error) console.log(`    ${t.error.slice(0, 800).replace(/\n/g, '\n    ')}`);
        }
  }
  console.log(`\n  ${count('passed')} passing (${seconds(Date.now() - started)})`);
  if (count('skipped')) console.log(`  ${count('skipped')} pending`);
  if (count('failed')) console.log(`  ${count('failed')} failing`);
  console.log(`tests: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  if (missing) console.log(`${missing} shard(s) ended without a report`);
  if (failed.length || missing || count('failed')) process.exitCode = 1;
}

/** test/timings.json (each file's time per mode, from this run) and data/test-runs/timings.md (the tables). */
function writeTimings(byMode: Record<Mode, Record<string, FileReport>>, results: { shard: Shard; ms: number }[]): void {
  const previous = readTimings();
  const next: Timings = { embedded: { ...previous.embedded }, url: { ...previous.url } };
  for (const mode of ['embedded', 'url'] as Mode[])
    for (const [file, f] of Object.entries(byMode[mode])) next[mode][file] = f.ms;
  const sorted = (o: Record<string, number>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  fs.writeFileSync(TIMINGS, JSON.stringify({ embedded: sorted(next.embedded), url: sorted(next.url) }, null, 2) + '\n');

  const rows = Object.entries(byMode).flatMap(([mode, files]) =>
    Object.entries(files).map(([file, f]) => ({ mode, file, ms: f.ms, tests: f.tests.length })),
  );
  const lines = ['| file | mode | tests | seconds |', '|---|---|---:|---:|'];
  for (const r of [...rows].sort((a, b) => b.ms - a.ms).slice(0, 30))
    lines.push(`| ${r.file} | ${r.mode} | ${r.tests} | ${(r.ms / 1000).toFixed(1)} |`);
  lines.push('', '| folder | mode | files | seconds |', '|---|---|---:|---:|');
  const folders = new Map<string, { files: number; ms: number }>();
  for (const r of rows) {
    const key = `${path.dirname(r.file)} | ${r.mode}`;
    const v = folders.get(key) ?? { files: 0, ms: 0 };
    folders.set(key, { files: v.files + 1, ms: v.ms + r.ms });
  }
  for (const [key, v] of [...folders].sort()) lines.push(`| ${key} | ${v.files} | ${(v.ms / 1000).toFixed(0)} |`);
  lines.push('', '| shard | mode | files | wall seconds |', '|---|---|---:|---:|');
  for (const r of results)
    lines.push(`| ${r.shard.id} | ${r.shard.mode} | ${r.shard.files.length} | ${(r.ms / 1000).toFixed(0)} |`);
  fs.writeFileSync(path.join(RUNS, 'timings.md'), lines.join('\n') + '\n');
  console.log(`\ntest/timings.json written; the tables are in ${path.relative(ROOT, path.join(RUNS, 'timings.md'))}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, 'test', 'run.ts'))
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(2);
  });
