import type { Transaction } from 'sequelize';
import { domainEvent } from '../events.js';

/**
 * What the accounts domain tells the floors above it (src/reactions.ts wires who reacts), inside the transaction that
 * wrote the change.
 */

/** One login changed or went; `keepSessionId` is the dashboard session that changed its own password (it stays). */
export interface LoginChange {
  transaction: Transaction;
  userId: number;
  passwordChanged: boolean;
  emailChanged: boolean;
  deactivated: boolean;
  deleted: boolean;
  keepSessionId?: string;
}

/** A login was updated or deleted (auth ends its credentials, the queue its claims, the token cache forgets it). */
export const loginChanged = domainEvent<LoginChange>('login.changed');

/** An account's time zone changed (stats recompute its KPI days out of band). */
export const accountZoneChanged = domainEvent<{ transaction: Transaction; accountId: number }>('account.zone_changed');
