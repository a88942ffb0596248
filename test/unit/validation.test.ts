import { expect } from 'chai';
import fc from 'fast-check';
import Joi from 'joi';
import { checkLeadItems, type CatalogueProduct } from '../../src/leads/lead.check.js';
import { leadItemSchema } from '../../src/leads/lead.schemas.js';
import { keepPhone } from '../../src/phone.js';
import { fastValidator } from '../../src/fast-validator.js';
import { JOI_OPTIONS, toFieldErrors } from '../../src/validation.js';

/** Whatever the fast path accepts, Joi accepts with the same value; returns how many inputs the fast path decided. */
function agreesWithJoi(schema: Joi.Schema, inputs: fc.Arbitrary<unknown>, numRuns = 3000): number {
  const fast = fastValidator(schema);
  let decided = 0;
  fc.assert(
    fc.property(inputs, (input) => {
      const got = fast(input);
      if (got === undefined) return;
      decided++;
      const { value, error } = schema.validate(input, JOI_OPTIONS);
      expect(error?.message, JSON.stringify(input)).to.equal(undefined);
      expect(got).to.deep.equal(value);
    }),
    { numRuns },
  );
  if (process.env.SHOW) console.log(decided);
  return decided;
}

/** Strings around the limits, with the padding and characters that trim and length rules care about. */
const text = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 12 }))
      .map(([pad, n]) => `${' '.repeat(pad)}${'abc d'.repeat(n)}${' '.repeat(pad)}`),
  },
  fc.string({ unit: fc.constantFrom('a', ' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', 'é', '😀'), maxLength: 12 }),
  fc.integer({ min: 0, max: 110 }).map((n) => 'x'.repeat(n)),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 104 }))
    .map(([pad, n]) => `${' '.repeat(pad)}${'y'.repeat(n)}${' '.repeat(pad)}`),
);
const number = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 1, max: 9 }) },
  fc.integer({ min: -2, max: 1_000_001 }),
  fc.double({ noDefaultInfinity: false }),
  fc.integer({ min: -100_000, max: 100_000_000 }).map((n) => n / 100),
  fc.integer({ min: 0, max: 100_000 }).map((n) => n / 1000),
  fc.constantFrom(-0, 0.1 + 0.2, 999_999.994, 999_999.995, 1e21, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity),
);
const anything = fc.oneof(text, number, fc.constantFrom(null, undefined, true, [], {}, '12', ' 3 ', '1e2'));
const field = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 30, arbitrary: arb }, { weight: 1, arbitrary: anything });

const product = fc.record(
  { sku: field(text), quantity: field(number), price: field(number) },
  { requiredKeys: ['sku', 'quantity', 'price'], noNullPrototype: true },
);
/** Lead items, mostly well-formed, with any field now and then replaced by something else. */
const item = fc.record(
  {
    // possible numbers (national and international, padded) as well as text, which is never a possible number
    phone: field(fc.oneof(text, fc.constantFrom('+212600000001', ' 0600000002 ', '600000003', '+33 6 12 34 56 78'))),
    full_name: field(text),
    city: field(text),
    area: field(text),
    address: field(text),
    data: field(
      fc.array(fc.record({ key: field(text), value: field(text) }, { requiredKeys: [], noNullPrototype: true }), {
        maxLength: 3,
      }),
    ),
    products: field(fc.array(field(product), { maxLength: 3 })),
  },
  { requiredKeys: ['phone', 'full_name', 'products'], noNullPrototype: true },
);

describe('fast validation path', () => {
  it('never accepts a lead item Joi refuses, and converts like Joi', () => {
    const withExtra = fc
      .tuple(item, fc.option(fc.constantFrom('status', 'toString', '__proto__')))
      .map(([i, extra]) => (extra ? JSON.parse(JSON.stringify({ ...i, [extra]: 'x' })) : i));
    const decided = agreesWithJoi(
      leadItemSchema,
      fc.oneof(
        item,
        withExtra,
        anything,
        fc.dictionary(fc.constantFrom('phone', 'full_name', 'products', 'city'), anything),
      ),
      5000,
    );
    expect(decided, 'the fast path decided some inputs').to.be.greaterThan(50);
  });

  it('checks a list of items, good and bad, exactly as Joi over the whole list: same errors, same values', function () {
    this.timeout(120_000); // thousands of generated lists, CPU only: over 30 s on a loaded 2-core machine
    /** Every sku is in this catalogue, so the only errors are the schema's. */
    const catalogue = new (class extends Map<string, CatalogueProduct> {
      override get(sku: string) {
        return { id: 1, sku, name: sku, price: 1 };
      }
    })();
    const list = fc.oneof(
      fc.array(fc.oneof({ weight: 5, arbitrary: item }, anything), { maxLength: 8 }),
      fc.sparseArray(item, { maxLength: 6 }),
    );
    fc.assert(
      fc.property(list, (items) => {
        const { value, error } = Joi.object({ rows: Joi.array().items(leadItemSchema) }).validate(
          { rows: items },
          JOI_OPTIONS,
        );
        const want = error ? toFieldErrors(error) : {};
        // past the schema, a phone that is not a possible number is no error: its lead is created `wrong`
        const { prepared, errors } = checkLeadItems(items, 'rows', catalogue, 'MA');
        expect(errors, JSON.stringify(items)).to.deep.equal(want);
        const invalid = new Set(Object.keys(want).map((k) => Number(k.split('.')[1])));
        prepared.forEach((p, i) => {
          if (invalid.has(i)) return expect(p).to.equal(null);
          const v = value.rows[i];
          const kept = keepPhone(v.phone, 'MA');
          expect([
            p!.phone,
            p!.phone_normalized,
            p!.status,
            p!.full_name,
            p!.city,
            p!.data,
            p!.products.map((l) => [l.sku, l.quantity, l.price]),
          ]).to.deep.equal([
            kept.phone,
            kept.phone_normalized,
            kept.phone_normalized ? undefined : 'wrong',
            v.full_name,
            v.city ?? null,
            v.data ?? [],
            v.products.map((l: { sku: string; quantity: number; price: number }) => [l.sku, l.quantity, l.price]),
          ]);
        });
      }),
      { numRuns: 1500 },
    );
  });

  it('decides ordinary valid items itself (trimmed) and leaves every invalid or doubtful one to Joi', () => {
    const fast = fastValidator(leadItemSchema);
    const good = {
      phone: ' +212600000001 ',
      full_name: 'Ali Ben',
      city: 'Rabat',
      data: [{ key: 'utm', value: 'x' }],
      products: [{ sku: 'A', quantity: 2, price: 150.5 }],
    };
    expect(fast(good)).to.deep.equal({ ...good, phone: '+212600000001' });
    for (const doubtful of [
      { ...good, phone: '123456' },
      { ...good, extra: 1 },
      { ...good, city: undefined },
      { ...good, products: [] },
      { ...good, products: [{ sku: 'A', quantity: '2', price: 1 }] },
      { ...good, products: [{ sku: 'A', quantity: 1, price: 1.005 }] },
      { ...good, products: [{ sku: 'A', quantity: 1.5, price: 1 }] },
      { ...good, products: [{ sku: 'A', quantity: 1, price: -0 }] },
      // eslint-disable-next-line no-sparse-arrays
      { ...good, data: [, { key: 'a' }] },
      Object.assign(Object.create(null), good),
      null,
      'x',
    ])
      expect(fast(doubtful), JSON.stringify(doubtful)).to.equal(undefined);
  });

  it('compiles only the rules it understands; any other schema always goes to Joi', () => {
    for (const schema of [
      Joi.string().email(),
      Joi.object({ a: Joi.string().allow('') }),
      Joi.object({ a: Joi.number().greater(1) }),
      Joi.object(),
      Joi.array().items(Joi.string(), Joi.number()),
      Joi.object({ a: Joi.string().default('x') }),
      Joi.object({ a: Joi.string().min(Joi.ref('b')), b: Joi.number() }),
      Joi.object({ a: Joi.string().forbidden() }),
    ]) {
      const fast = fastValidator(schema);
      for (const input of ['a@b.c', { a: 'x' }, { a: 2 }, {}, ['a'], { a: 'abc', b: 1 }])
        expect(fast(input)).to.equal(undefined);
    }
  });

  it('agrees with Joi on the number, array and untrimmed-string rules', () => {
    const schema = Joi.object({
      n: Joi.number().integer().min(-5).max(5),
      p: Joi.number().precision(1),
      s: Joi.string().min(2).max(4),
      a: Joi.array().min(1).max(2).items(Joi.number()),
    });
    const decided = agreesWithJoi(
      schema,
      fc.record(
        { n: field(number), p: field(number), s: field(text), a: field(fc.array(field(number), { maxLength: 3 })) },
        { requiredKeys: [], noNullPrototype: true },
      ),
    );
    expect(decided).to.be.greaterThan(50);
  });
});
