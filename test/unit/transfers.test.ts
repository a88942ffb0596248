import { expect } from 'chai';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { inlineParams } from '../../src/db/index.js';
import { copyTextRows, csvRecordCounter } from '../../src/transfers/export-streams.js';
import { parseProducts } from '../../src/transfers/import-rows.js';

/** Feeds `text` through the counter in the given chunk sizes and returns the records it counted. */
async function count(text: string, cuts: number[]): Promise<number> {
  const progress = { rows: 0 };
  const counter = csvRecordCounter(progress);
  const buf = Buffer.from(text);
  let at = 0;
  for (const cut of cuts) {
    counter.write(buf.subarray(at, Math.min(buf.length, at + cut)));
    at = Math.min(buf.length, at + cut);
  }
  counter.end(buf.subarray(at));
  for await (const _ of counter) {
    /* drain */
  }
  return progress.rows;
}

describe('export streaming helpers', () => {
  it('counts CSV records (header excluded) whatever the quoting, newlines in cells and chunk boundaries', async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', 'é', ' ') });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 17 }), { maxLength: 40 }),
        async (rows, cuts) => {
          const text = stringify([['a', 'b'], ...rows], { quoted_match: /[\n\r",]/ });
          expect(await count(text, cuts)).to.equal(rows.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads COPY text format back into the cells PostgreSQL wrote, whatever the chunk boundaries', async () => {
    // COPY TO's text format as documented: backslash, newline, CR, tab, backspace, form feed and vertical tab escaped; NULL as \N.
    const pgText = (v: string | null) =>
      v === null
        ? '\\N'
        : v.replace(
            /[\\\n\r\t\b\f\v]/g,
            (c) =>
              `\\${({ '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f', '\v': 'v' } as Record<string, string>)[c] ?? c}`,
          );
    const cell = fc.option(
      fc.string({ unit: fc.constantFrom('a', 'N', '\\', '\n', '\r', '\t', '\b', 'é', '€', '😀', ' ') }),
      { nil: null },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 13 }), { maxLength: 40 }),
        async (rows, cuts) => {
          const buf = Buffer.from(rows.map((r) => r.map(pgText).join('\t') + '\n').join(''));
          const reader = copyTextRows();
          let at = 0;
          for (const cut of cuts) {
            reader.write(buf.subarray(at, Math.min(buf.length, at + cut)));
            at = Math.min(buf.length, at + cut);
          }
          reader.end(buf.subarray(at));
          const out: (string | null)[][] = [];
          for await (const batch of reader) out.push(...(batch as (string | null)[][]));
          expect(out).to.deep.equal(rows);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('inlines parameters as literals, quotes and backslashes escaped, and refuses other types', () => {
    expect(
      inlineParams('a = $1 AND b = $2 AND c >= $3 AND d = $10', [
        "O'Brien \\ $2",
        7,
        new Date('2026-01-02T03:04:05Z'),
        0,
        0,
        0,
        0,
        0,
        0,
        'x',
      ]),
    ).to.equal("a =  E'O''Brien \\\\ $2' AND b = 7 AND c >= '2026-01-02T03:04:05.000Z' AND d = 'x'");
    expect(() => inlineParams('a = $1', [{}])).to.throw(/cannot inline/);
    expect(() => inlineParams('a = $1', [Number.NaN])).to.throw(/cannot inline/);
  });
});

describe('import of the products cell', () => {
  it('reads back what the export writes and nothing else', () => {
    expect(parseProducts('A-1 x2 @ 150; B 2 x1 @ 99.5')).to.deep.equal([
      { sku: 'A-1', quantity: 2, price: 150 },
      { sku: 'B 2', quantity: 1, price: 99.5 },
    ]);
    for (const bad of ['', 'A-1', 'A-1 x2 @ 150;', 'A-1 x2 @ 150; junk', 'A-1 x2 @ ', 'x2 @ 1', 'A x-1 @ 5'])
      expect(parseProducts(bad), bad).to.equal(null);
    const sku = fc
      .string({ unit: fc.constantFrom('a', 'Z', '-', '_', ' ', ';', 'é', 'x', '@', '1'), minLength: 1, maxLength: 8 })
      .filter((s) => !/ x\d+ @ |; |^ | $/.test(s));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            sku,
            quantity: fc.integer({ min: 1, max: 999 }),
            price: fc.integer({ min: 100, max: 99_999_999 }).map((c) => c / 100),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (lines) => {
          // formatted as the export's SQL does: sku || ' x' || quantity || ' @ ' || trim_scale(price), joined by '; '
          expect(parseProducts(lines.map((l) => `${l.sku} x${l.quantity} @ ${l.price}`).join('; '))).to.deep.equal(
            lines,
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
