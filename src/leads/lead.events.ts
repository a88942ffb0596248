import type { Transaction } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { domainEvent } from '../events.js';

/** An order a confirmation created: its reference and its lead's (a lead whose order exists already has none). */
export interface ConfirmedOrder {
  reference: string;
  lead_reference: string;
}

/**
 * Leads reached `confirmed` in this transaction (a status change, a bulk create or an import of confirmed leads):
 * the orders domain creates their orders, exactly once each, and answers them (src/reactions.ts).
 */
export const leadsConfirmed = domainEvent<
  { transaction: Transaction; actor: Actor; leadIds: number[] },
  ConfirmedOrder[]
>('leads.confirmed');

/** Tells the floors above which leads were confirmed in `transaction`; answers the orders created for them. */
export async function confirmedOrders(
  core: Core,
  transaction: Transaction,
  actor: Actor,
  leadIds: number[],
): Promise<ConfirmedOrder[]> {
  if (leadIds.length === 0) return [];
  return (await leadsConfirmed.emit(core, { transaction, actor, leadIds })).flat();
}
