import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench -- stock [--against REF] [--runs N] [--repeats M]`: what the stock upkeep (issue 43) costs the writes
 * it follows. `PUT /leads` confirming 1,000 leads (each confirmation reserves its order's lines) and a carrier callback
 * shipping 500 orders (each shipment is a ledger row and a level change), this tree against REF (default 592bbba, the
 * tree before stock), each round a process of its own tree (bench/stock-round.ts, copied into REF's worktree: it uses
 * only what both trees have), the trees interleaved, each on its own embedded database under data/bench-stock/.
 * Prints both medians of every round and the ratio of the medians.
 */
const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

function worktree(ref: string): string {
  const dir = path.resolve('data/bench-stock/tree');
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    spawnSync('git', ['worktree', 'prune'], { stdio: 'inherit' });
    const made = spawnSync('git', ['worktree', 'add', '--detach', dir, ref], { stdio: 'inherit' });
    if (made.status !== 0) throw new Error(`git worktree add ${ref} failed`);
    fs.symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
  }
  fs.copyFileSync(path.resolve('bench/stock-round.ts'), path.join(dir, 'bench/stock-round.ts'));
  return dir;
}

function round(cwd: string, side: string, repeats: string): { confirm: number; callback: number } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/stock-round.ts', repeats], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, BENCH_DATA_DIR: path.resolve(`data/bench-stock/${side}`), NODE_OPTIONS: '' },
  });
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 || !line.startsWith('{')) throw new Error(`${side} round failed: ${run.stderr}\n${run.stdout}`);
  return JSON.parse(line) as { confirm: number; callback: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (n: number) => `${n.toFixed(1)} ms`;

export async function run(): Promise<void> {
  const ref = flag('--against', '592bbba');
  const runs = Number(flag('--runs', '3'));
  const repeats = flag('--repeats', '5');
  const before = worktree(ref);
  type Round = { confirm: number; callback: number };
  const seen: { before: Round[]; after: Round[] } = { before: [], after: [] };
  for (let i = 0; i < runs; i++) {
    seen.before.push(round(before, 'before', repeats));
    seen.after.push(round(process.cwd(), 'after', repeats));
    process.stdout.write(
      `run ${i + 1}: PUT /leads ×1,000 confirmations ${ms(seen.before[i].confirm)} (${ref}) / ` +
        `${ms(seen.after[i].confirm)} (this tree); callback ×500 shipped ${ms(seen.before[i].callback)} / ` +
        `${ms(seen.after[i].callback)}\n`,
    );
  }
  for (const key of ['confirm', 'callback'] as const) {
    const b = median(seen.before.map((r) => r[key]));
    const a = median(seen.after.map((r) => r[key]));
    process.stdout.write(`${key}: ${ms(b)} without stock (${ref}), ${ms(a)} with → ratio ${(a / b).toFixed(2)}\n`);
  }
}
