import { expect } from 'chai';
import { ValidationError } from '../../src/errors.js';
import { parseIdempotencyKey, requestHash } from '../../src/idempotency/idempotency-key.js';

/** The Idempotency-Key's reading and the request hash (src/idempotency/idempotency-key.ts, docs/api.md). */
describe('Idempotency-Key reading and request hash', () => {
  const refusal = (values: string[]) => {
    try {
      parseIdempotencyKey(values);
    } catch (err) {
      expect(err).to.be.instanceOf(ValidationError);
      return (err as ValidationError).errors['Idempotency-Key'][0];
    }
    throw new Error(`accepted ${JSON.stringify(values)}`);
  };

  it('When no header is sent, Then there is no key', () => {
    expect(parseIdempotencyKey(undefined)).to.equal(undefined);
  });

  it('When a key is sent bare, quoted or with surrounding spaces, Then it reads the same', () => {
    expect(parseIdempotencyKey(['abc-1'])).to.equal('abc-1');
    expect(parseIdempotencyKey(['"abc-1"'])).to.equal('abc-1');
    expect(parseIdempotencyKey(['  abc-1 '])).to.equal('abc-1');
  });

  it('When a key is 255 printable characters, Then it is accepted; 256 are refused', () => {
    expect(parseIdempotencyKey(['~'.repeat(255)])).to.equal('~'.repeat(255));
    expect(refusal(['a'.repeat(256)])).to.equal('The Idempotency-Key must not be longer than 255 characters.');
  });

  it('When a key holds a tab, DEL, NUL or a non-ASCII character, Then it is refused', () => {
    for (const bad of ['a\tb', 'a\x7fb', 'a\0b', 'ключ', 'caf\u00e9'])
      expect(refusal([bad])).to.equal('The Idempotency-Key may only contain printable ASCII characters.');
  });

  it('When the key is empty, only quotes, or sent twice, Then it is refused', () => {
    expect(refusal([''])).to.equal('The Idempotency-Key must not be empty.');
    expect(refusal(['""'])).to.equal('The Idempotency-Key must not be empty.');
    expect(refusal(['a', 'a'])).to.equal('Send one Idempotency-Key header, not several.');
  });

  it('When two bodies differ only in key order, Then their hashes are equal; any changed value or order of items differs', () => {
    const body = { leads: [{ phone: '+212600000001', products: [{ sku: 'A', quantity: 1 }] }] };
    const reordered = { leads: [{ products: [{ quantity: 1, sku: 'A' }], phone: '+212600000001' }] };
    expect(requestHash(reordered)).to.equal(requestHash(body));
    expect(requestHash(body)).to.match(/^[0-9a-f]{64}$/);
    expect(requestHash({ leads: [{ ...body.leads[0], phone: '+212600000002' }] })).not.to.equal(requestHash(body));
    expect(requestHash({ a: [1, 2] })).not.to.equal(requestHash({ a: [2, 1] }));
    expect(requestHash({ a: '1' })).not.to.equal(requestHash({ a: 1 }));
  });
});
