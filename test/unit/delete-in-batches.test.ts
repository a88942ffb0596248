import { expect } from 'chai';
import { deleteInBatches } from '../../src/query.js';

describe('deleteInBatches (the retention jobs)', () => {
  const run = async (answers: number[], size: number) => {
    const asked: number[] = [];
    const total = await deleteInBatches(async (n) => {
      asked.push(n);
      return answers[asked.length - 1] ?? 0;
    }, size);
    return { total, calls: asked.length, sizes: [...new Set(asked)] };
  };

  it('When every batch is full, Then it asks again until one comes back short, and answers the sum', async () => {
    expect(await run([3, 3, 1], 3)).to.deep.equal({ total: 7, calls: 3, sizes: [3] });
    expect(await run([3, 3, 0], 3)).to.deep.equal({ total: 6, calls: 3, sizes: [3] });
  });

  it('When the first batch is short or empty, Then it stops there', async () => {
    expect(await run([2], 3)).to.deep.equal({ total: 2, calls: 1, sizes: [3] });
    expect(await run([0], 3)).to.deep.equal({ total: 0, calls: 1, sizes: [3] });
  });
});
