import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lint's import rule (.dependency-cruiser.cjs) run on a planted tree of two files. */
function cruise(a: string, b: string): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `depcruise-${process.pid}-`));
  try {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.copyFileSync('.dependency-cruiser.cjs', path.join(dir, '.dependency-cruiser.cjs'));
    fs.copyFileSync('tsconfig.json', path.join(dir, 'tsconfig.json'));
    fs.writeFileSync(path.join(dir, 'src', 'a.ts'), a);
    fs.writeFileSync(path.join(dir, 'src', 'b.ts'), b);
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

describe('the import rule inside src/ (npm run lint: dependency-cruiser, issue 42)', function () {
  this.timeout(60_000);

  it('When two files of src/ import each other at run time, Then the lint fails naming the cycle', () => {
    const { status, out } = cruise(
      "import { b } from './b.js';\nexport const a = () => b;\n",
      "import { a } from './a.js';\nexport const b = () => a;\n",
    );
    expect(status, out).to.not.equal(0);
    expect(out).to.include('no-circular').and.include('src/a.ts');
  });

  it('When one of the two imports is type-only, Then there is no cycle at run time and the lint passes', () => {
    const { status, out } = cruise(
      "import { b } from './b.js';\nexport type A = { n: number };\nexport const a = () => b;\n",
      "import type { A } from './a.js';\nexport const b = (x: A) => x.n;\n",
    );
    expect(status, out).to.equal(0);
  });
});

/** src/'s top-level module of a file: its folder, or the file itself at the top. */
const moduleOf = (file: string) => file.split('/')[1].replace(/\.ts$/, '');

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

describe("src/'s modules (issue 42): the knot may only shrink", function () {
  this.timeout(60_000);

  it('When the run-time imports between src/ modules are read (dependency-cruiser), Then no more than 5 modules and 10 imports form a cycle', () => {
    const run = spawnSync(
      path.resolve('node_modules/.bin/depcruise'),
      ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const modules = (JSON.parse(run.stdout) as { modules: { source: string; dependencies: { resolved: string }[] }[] })
      .modules;
    const edges = new Set<string>();
    for (const m of modules)
      for (const d of m.dependencies)
        if (m.source.startsWith('src/') && d.resolved.startsWith('src/') && moduleOf(m.source) !== moduleOf(d.resolved))
          edges.add(`${moduleOf(m.source)} ${moduleOf(d.resolved)}`);
    const sets = knots(edges);
    const inside = (set: string[]) => [...edges].filter((e) => e.split(' ').every((x) => set.includes(x))).length;
    const size = sets.reduce((n, s) => n + s.length, 0);
    const imports = sets.reduce((n, s) => n + inside(s), 0);
    // lower these figures when a change takes a module or an import out of the knot (docs/architecture.md)
    expect(size, JSON.stringify(sets)).to.be.at.most(5);
    expect(imports, JSON.stringify(sets)).to.be.at.most(10);
  });
});
