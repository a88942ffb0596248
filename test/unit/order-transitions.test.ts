import { expect } from 'chai';
import { ORDER_STATUSES, type OrderStatus } from '../../src/orders/order.model.js';
import { canMove, DELETABLE_ORDER_STATUSES } from '../../src/orders/order.transitions.js';

/** decisions.md "Orders", written out as the allowed (from → to) pairs. */
const ALLOWED = new Set([
  'new>pushed',
  'pushed>shipped',
  'shipped>delivered',
  'shipped>returned',
  'new>canceled',
  'pushed>canceled',
  'pushed>new',
]);

describe('order transitions', () => {
  for (const from of ORDER_STATUSES) {
    for (const to of ORDER_STATUSES) {
      const want = from === to || ALLOWED.has(`${from}>${to}`);
      it(`${want ? 'allows' : 'refuses'} ${from} → ${to}`, () => {
        expect(canMove(from as OrderStatus, to as OrderStatus)).to.equal(want);
      });
    }
  }
  it('lets only new and canceled orders be deleted', () => {
    expect([...DELETABLE_ORDER_STATUSES].sort()).to.deep.equal(['canceled', 'new']);
  });
});
