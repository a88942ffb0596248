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
