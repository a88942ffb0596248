import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `npm run bench -- <name> [args]` runs bench/<name>.bench.ts; with no name, lists them. */
const dir = path.dirname(fileURLToPath(import.meta.url));
const available = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).map((f) => f.replace('.bench.ts', ''));
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  process.stdout.write(`usage: npm run bench -- <${available.join('|')}> [args]\n`);
  process.exit(name ? 1 : 0);
}
process.stdout.write(`bench ${name} on ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`);
const mod = await import(path.join(dir, `${name}.bench.ts`));
await mod.run(args);
