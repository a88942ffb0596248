import type { OrderStatus } from './order.model.js';

/**
 * decisions.md: new → pushed → shipped → delivered | returned; new | pushed → canceled; pushed → new (push undone).
 * Setting the current status again is a no-op, as for leads. Every other move is refused.
 */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  new: ['pushed', 'canceled'],
  pushed: ['shipped', 'canceled', 'new'],
  shipped: ['delivered', 'returned'],
  delivered: [],
  returned: [],
  canceled: [],
};

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return from === to || ORDER_TRANSITIONS[from].includes(to);
}

/** Only these may be deleted; every other status is protected. */
export const DELETABLE_ORDER_STATUSES: readonly OrderStatus[] = ['new', 'canceled'];
