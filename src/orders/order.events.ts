import type { Transaction } from 'sequelize';
import { domainEvent } from '../events.js';
import type { OrderStatus } from './order.model.js';

/**
 * What the orders domain tells the floors above it (src/reactions.ts wires who reacts: stock reserves, ships, returns
 * and releases), inside the transaction that wrote the orders. `by` is who the change is written under.
 */
export interface OrdersBy {
  name: string;
  userId: number | null;
}

/**
 * Orders were created (a confirmed lead's, or POST /orders); those created canceled need nothing. `warehouses`, in the
 * order of `orderIds`, are the warehouse codes POST /orders items named (absent: the account's default), to be
 * refused under `orders.<i>.warehouse` when the account has no such warehouse.
 */
export const ordersCreated = domainEvent<{
  transaction: Transaction;
  orderIds: number[];
  by: OrdersBy;
  warehouses?: (string | undefined)[];
}>('orders.created');

/** Orders moved from one status to another (REST, panel, a push, a carrier callback). */
export const ordersMoved = domainEvent<{
  transaction: Transaction;
  moves: { orderId: number; accountId: number; from: OrderStatus; to: OrderStatus }[];
  by: OrdersBy;
}>('orders.moved');

/** Orders are about to be deleted (new or canceled ones), their rows still there. */
export const ordersDeleting = domainEvent<{ transaction: Transaction; orderIds: number[]; by: OrdersBy }>(
  'orders.deleting',
);
