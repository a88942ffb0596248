import { expect } from 'chai';
import { EMPTY_MARK, isEmptyValue, shownOrEmpty } from '../../admin/components/empty-value.js';

describe('panel empty values: a dash, never the raw [] or {} of an empty JSON column', () => {
  it('When a value holds nothing (null, blank, [], {}, or their JSON texts), Then it is empty and shown as a dash', () => {
    for (const raw of [null, undefined, '', '  ', [], {}, '[]', '{}', ' [ ] ', '{\n}', 'null', '""'])
      expect(shownOrEmpty(raw), JSON.stringify(raw)).to.equal(EMPTY_MARK);
  });

  it('When a value holds something, Then it is shown as it is', () => {
    for (const raw of ['[{"sku":"A-1"}]', '{"PAGE-BLUE":"A-1"}', 'Amina', '0', 'nullable', '[broken', '"x"'])
      expect(isEmptyValue(raw), raw).to.equal(false);
    expect(isEmptyValue([{}])).to.equal(false);
    expect(isEmptyValue({ a: 1 })).to.equal(false);
    expect(isEmptyValue(0)).to.equal(false);
    expect(shownOrEmpty('{"a":1}')).to.equal('{"a":1}');
  });
});
