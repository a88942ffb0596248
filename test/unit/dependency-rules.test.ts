import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lint's import rules (.dependency-cruiser.cjs) run on a planted tree: `files` by path under src/. */
function cruise(files: Record<string, string>): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `depcruise-${process.pid}-`));
  try {
    fs.copyFileSync('.dependency-cruiser.cjs', path.join(dir, '.dependency-cruiser.cjs'));
    fs.copyFileSync('tsconfig.json', path.join(dir, 'tsconfig.json'));
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, 'src', name)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src', name), text);
    }
    const bin = path.resolve('node_modules/.bin/depcruise');
    const run = spawnSync(bin, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
      cwd: dir,
      encoding: 'utf8',
      // (the test runner's NODE_OPTIONS load tsx, which the planted tree does not have)
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    return { status: run.status, out: `${run.stdout}${run.stderr}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A module that imports `target` (a path from its own folder) at run time. */
const importing = (target: string) => `import { x } from '${target}';\nexport const y = () => x;\n`;
const leaf = 'export const x = 1;\n';

describe('the import rules inside src/ (npm run lint: dependency-cruiser, issue 42)', function () {
  this.timeout(60_000);

  it('When two files of src/ import each other at run time, Then the lint fails naming the cycle', () => {
    const { status, out } = cruise({
      'a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    expect(status, out).to.not.equal(0);
    expect(out).to.include('no-circular').and.include('src/a.ts');
  });

  it('When one of the two imports is type-only, Then there is no cycle at run time and the lint passes', () => {
    const { status, out } = cruise({
      'a.ts': "import { b } from './b.js';\nexport type A = { n: number };\nexport const a = () => b;\n",
      'b.ts': "import type { A } from './a.js';\nexport const b = (x: A) => x.n;\n",
    });
    expect(status, out).to.equal(0);
  });

  it('When a domain imports a floor above it (accounts → queue), Then the lint fails with floor-climb', () => {
    const { status, out } = cruise({ 'accounts/a.ts': importing('../queue/b.js'), 'queue/b.ts': leaf });
    expect(status, out).to.not.equal(0);
    expect(out).to.include('floor-climb').and.include('src/accounts/a.ts');
  });

  it('When the kernel imports a domain or the model registry, Then the lint fails with floor-climb', () => {
    const { status, out } = cruise({
      'query.ts': importing('./leads/b.js'),
      'leads/b.ts': leaf,
      'db/c.ts': importing('../models.js'),
      'models.ts': leaf,
    });
    expect(status, out).to.not.equal(0);
    expect(out).to.include('src/query.ts').and.include('src/db/c.ts');
  });

  it('When two domains of one floor import each other one way (leads → auth), Then the lint fails with floor-sibling', () => {
    const { status, out } = cruise({ 'leads/a.ts': importing('../auth/b.js'), 'auth/b.ts': leaf });
    expect(status, out).to.not.equal(0);
    expect(out).to.include('floor-sibling');
  });

  it('When a new folder of src/ is on no floor, Then the lint fails with off-the-floors', () => {
    const { status, out } = cruise({ 'stocks/a.ts': importing('../query.js'), 'query.ts': leaf });
    expect(status, out).to.not.equal(0);
    expect(out).to.include('off-the-floors');
  });

  it('When every import goes down a floor (wiring → orders → leads → holdings → kernel), Then the lint passes', () => {
    const { status, out } = cruise({
      'services.ts': importing('./orders/a.js'),
      'orders/a.ts': importing('../leads/b.js'),
      'leads/b.ts': importing('../accounts/c.js'),
      'accounts/c.ts': importing('../query.js'),
      'query.ts': importing('./db/d.js'),
      'db/d.ts': leaf,
    });
    expect(status, out).to.equal(0);
  });
});

/** The top-level module of a file in its folder of the tree (src/, api/, …): a sub-folder, or a file at the top. */
const moduleOf = (file: string) =>
  file
    .split('/')
    .slice(0, 2)
    .join('/')
    .replace(/\.tsx?$/, '');
const FOLDERS = ['src', 'api', 'admin', 'jobs', 'http', 'app'];

/** The strongly connected sets of more than one module (Tarjan), from `edges` between modules. */
function knots(edges: Set<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = e.split(' ');
    next.set(a, [...(next.get(a) ?? []), b]);
    if (!next.has(b)) next.set(b, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) set.push(w);
    if (set.length > 1) found.push(set.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the modules of src/, api/, admin/, jobs/, http/ and app/ (issue 42): no cycle between them', function () {
  this.timeout(60_000);

  it('When the run-time imports between the top-level modules of each folder are read (dependency-cruiser), Then none is in a cycle', () => {
    const run = spawnSync(
      path.resolve('node_modules/.bin/depcruise'),
      [...FOLDERS, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const modules = (JSON.parse(run.stdout) as { modules: { source: string; dependencies: { resolved: string }[] }[] })
      .modules;
    const edges = new Set<string>();
    for (const m of modules)
      for (const d of m.dependencies)
        if (
          m.source.split('/')[0] === d.resolved.split('/')[0] &&
          FOLDERS.includes(m.source.split('/')[0]) &&
          moduleOf(m.source) !== moduleOf(d.resolved)
        )
          edges.add(`${moduleOf(m.source)} ${moduleOf(d.resolved)}`);
    const sets = knots(edges);
    const inside = (set: string[]) => [...edges].filter((e) => e.split(' ').every((x) => set.includes(x))).length;
    const size = sets.reduce((n, s) => n + s.length, 0);
    const imports = sets.reduce((n, s) => n + inside(s), 0);
    expect(modules.length, run.stderr).to.be.above(300);
    expect(edges.size).to.be.above(100);
    expect(size, JSON.stringify(sets)).to.equal(0);
    expect(imports, JSON.stringify(sets)).to.equal(0);
  });
});
