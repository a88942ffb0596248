import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `npm run bench -- <name> [args]` runs bench/<name>.bench.ts; with no name, lists them. */
const dir = path.dirname(fileURLToPath(import.meta.url));
const available = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace('.bench.ts', ''));
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  process.stdout.write(`usage: npm run bench -- <${available.join('|')}> [args]\n`);
  process.exit(name ? 1 : 0);
}
// The import, export and customers benches run the jobs' code, so by default they run with the worker processes' Node
// options (package.json config.worker_node_options, which `npm run worker` uses too);
// `npx tsx bench/run.ts <name>` runs without.
const workerOptions = process.env.npm_package_config_worker_node_options;
if (['import', 'export', 'customers'].includes(name) && workerOptions && !process.env.BENCH_WORKER_CHILD) {
  const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: {
      ...process.env,
      BENCH_WORKER_CHILD: '1',
      NODE_OPTIONS: `${workerOptions} ${process.env.NODE_OPTIONS ?? ''}`.trim(),
    },
  });
  process.exit(child.status ?? 1);
}
process.stdout.write(
  `bench ${name} on ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}` +
    `${process.env.BENCH_WORKER_CHILD ? `, worker options ${workerOptions}` : ''}\n`,
);
const mod = await import(path.join(dir, `${name}.bench.ts`));
await mod.run(args);
