import { expect } from 'chai';
import Joi from 'joi';
import { queryKeyErrors } from '../../http/input-guard.js';
import { ValidationError } from '../../src/errors.js';
import { addError, inputErrors, validate } from '../../src/validation.js';
import { expectNoPollution } from '../input-probes.js';

describe('input rules (src/validation.ts inputErrors, http/input-guard.ts)', () => {
  it('When a string holds a lone surrogate (high, low, or a reversed pair), Then its field is named; an emoji pair passes', () => {
    const input = JSON.parse('{"a":"x\\ud800","b":["\\udc00y"],"c":{"d":"\\udc00\\ud800"},"ok":"\\ud83d\\ude00 😀"}');
    expect(inputErrors(input, 'leads.0')).to.deep.equal({
      'leads.0.a': ['The leads.0.a field must be valid Unicode text.'],
      'leads.0.b.0': ['The leads.0.b.0 field must be valid Unicode text.'],
      'leads.0.c.d': ['The leads.0.c.d field must be valid Unicode text.'],
    });
    expect(inputErrors({ ok: '😀', tab: 'a\tb\r\n' })).to.deep.equal({});
    // a key holding one names the object that holds the key, as a control character in a key does
    expect(inputErrors(JSON.parse('{"data":{"k\\ud800":"v"}}'))).to.deep.equal({
      data: ['The data field must be valid Unicode text.'],
    });
  });

  it('When a key at any depth is named like a prototype member, Then it is refused by its path, as an unknown field', () => {
    const input = JSON.parse(
      '{"__proto__":{"x":1},"leads":[{"constructor":{"prototype":{"y":1}}}],"data":{"toString":"a","valueOf":1}}',
    );
    // (JSON.parse: a `__proto__` key in an object literal would set the expectation's prototype instead)
    expect(inputErrors(input)).to.deep.equal(
      JSON.parse(`{"__proto__":["The __proto__ field is not allowed."],
        "leads.0.constructor":["The leads.0.constructor field is not allowed."],
        "data.toString":["The data.toString field is not allowed."],"data.valueOf":["The data.valueOf field is not allowed."]}`),
    );
    const refused = (() => {
      try {
        validate(Joi.object({ a: Joi.string() }), { hasOwnProperty: 'x' });
      } catch (e) {
        return e;
      }
    })();
    expect(refused).to.be.instanceOf(ValidationError);
    expect(JSON.stringify((refused as ValidationError).errors)).to.equal(
      '{"hasOwnProperty":["The hasOwnProperty field is not allowed."]}',
    );
    expectNoPollution('inputErrors');
  });

  it('When an error is added under a prototype-named key, Then it is an own list of the map (no throw, no prototype written)', () => {
    const errors = {};
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      addError(errors, key, `${key} one`);
      addError(errors, key, `${key} two`);
    }
    expect(Object.getPrototypeOf(errors)).to.equal(Object.prototype);
    expect(JSON.parse(JSON.stringify(errors))).to.deep.equal(
      JSON.parse(
        '{"__proto__":["__proto__ one","__proto__ two"],"constructor":["constructor one","constructor two"],' +
          '"toString":["toString one","toString two"],"hasOwnProperty":["hasOwnProperty one","hasOwnProperty two"]}',
      ),
    );
    expect(new ValidationError(errors).message).to.equal('__proto__ one (and 7 more errors)');
    expectNoPollution('addError');
  });

  it('When a raw query key names a prototype member (bracket, dotted, encoded), Then its path up to that segment is named', () => {
    expect(
      queryKeyErrors('/x?page=1&constructor=1&a[__proto__][b]=2&filters.toString=3&%5F%5Fproto%5F%5F.x=4&ok.b=5'),
    ).to.deep.equal(
      JSON.parse(`{"constructor":["The constructor field is not allowed."],
        "a.__proto__":["The a.__proto__ field is not allowed."],
        "filters.toString":["The filters.toString field is not allowed."],"__proto__":["The __proto__ field is not allowed."]}`),
    );
    expect(queryKeyErrors('/x?page=1&%E0%A4%A=2&prototypes=3')).to.deep.equal({});
  });
});
