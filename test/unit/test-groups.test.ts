import { expect } from 'chai';
import { dealShards } from '../run.js';
import { GROUPS, filesOfMode, testFiles } from '../groups.js';

/** The split of test/groups.ts (docs/testing.md): each test file in exactly one group, and the runner's dealing. */
describe('test groups (test/groups.ts)', () => {
  it('puts every test file on disk in exactly one group, and names no file that is not there', () => {
    const onDisk = testFiles();
    const declared = [...GROUPS.once, ...GROUPS.both];
    const counts = new Map<string, number>();
    for (const f of declared) counts.set(f, (counts.get(f) ?? 0) + 1);
    expect(
      onDisk.filter((f) => counts.get(f) !== 1),
      'files in no group or in both groups',
    ).to.deep.equal([]);
    expect(
      declared.filter((f) => !onDisk.includes(f)),
      'group entries with no file',
    ).to.deep.equal([]);
  });

  it('runs every file in the first mode and only the both group in the second', () => {
    expect([...filesOfMode('first')].sort()).to.deep.equal(testFiles());
    expect([...filesOfMode('second')].sort()).to.deep.equal([...GROUPS.both].sort());
    expect(filesOfMode('first')[0]).to.match(/^test\/unit\//);
  });

  it('deals files longest first onto the least loaded shard, each mode on shards of its own', () => {
    const work = [
      { mode: 'embedded' as const, file: 'a', ms: 50 },
      { mode: 'embedded' as const, file: 'b', ms: 40 },
      { mode: 'embedded' as const, file: 'c', ms: 30 },
      { mode: 'embedded' as const, file: 'd', ms: 20 },
      { mode: 'url' as const, file: 'a', ms: 50 },
    ];
    const shards = dealShards(work, 3);
    expect(shards.map((s) => [s.mode, s.files])).to.deep.equal([
      ['embedded', ['a', 'd']],
      ['embedded', ['b', 'c']],
      ['url', ['a']],
    ]);
    // every piece of work is dealt exactly once
    expect(shards.flatMap((s) => s.files.map((f) => `${s.mode}:${f}`)).sort()).to.deep.equal(
      work.map((w) => `${w.mode}:${w.file}`).sort(),
    );
  });
});
