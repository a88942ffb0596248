import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId } from '../query.js';
import { customersByPhones, type CustomerRecord } from './customer.repository.js';
import { customersOfLeads } from './customer-lookup.repository.js';

/** At most this many records per call: a panel page lists up to 500 rows. */
const MAX_KEYS = 500;

/**
 * The customer records the dashboard shows beside a phone (docs/admin-panel.md "Customers"): the record of a lead's
 * phone on its page and in the work queue, and the records of a page of customers. Read only; scoped to the actor's
 * account (an admin reads any), so another account's lead or phone answers nothing, like an unknown one.
 */
export function createCustomerLookupService(core: Core) {
  const { sequelize } = core.db;
  return {
    /**
     * The customer record of each lead's phone, by lead id: absent for a lead without an E.164 phone, and for an id
     * that is not a lead of the actor's account.
     */
    async ofLeads(actor: Actor, leadIds: number[]): Promise<Map<number, CustomerRecord>> {
      authorize(actor, 'view', 'customer');
      const ids = [...new Set(leadIds.map(Number))].filter(isRowId).slice(0, MAX_KEYS);
      return customersOfLeads(sequelize, accountScope(actor).account_id ?? null, ids);
    },

    /** The records of phones (E.164) of one account, by phone; an account the actor may not read answers nothing. */
    async byPhones(actor: Actor, accountId: number, phones: string[]): Promise<Map<string, CustomerRecord>> {
      authorize(actor, 'viewAny', 'customer');
      const scope = accountScope(actor).account_id;
      if (!isRowId(accountId) || (scope !== undefined && scope !== accountId)) return new Map();
      return customersByPhones(sequelize, accountId, phones.slice(0, MAX_KEYS));
    },
  };
}
export type CustomerLookupService = ReturnType<typeof createCustomerLookupService>;
