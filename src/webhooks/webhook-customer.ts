import type { Core } from '../context.js';
import { customerOfPhone } from '../customers/customer.repository.js';
import type { ClaimedDelivery } from './webhook-claim.js';

/**
 * A lead or order event's `data` with `customer`: the record of the lead's or order's E.164 phone in the account
 * (null without one), read when the attempt is made, not stored with the event (docs/webhooks.md "customer"): the
 * figures are the latest the receiver can act on, and the risk words follow the account's thresholds of the moment.
 * Other events (import.finished) are sent as recorded.
 */
export async function withCustomer(
  core: Core,
  d: Pick<ClaimedDelivery, 'account_id' | 'payload'>,
): Promise<Record<string, unknown>> {
  const subject = (d.payload.lead ?? d.payload.order) as { phone_e164?: unknown } | undefined;
  if (!subject || typeof subject !== 'object') return d.payload;
  const phone = typeof subject.phone_e164 === 'string' ? subject.phone_e164 : null;
  return { ...d.payload, customer: await customerOfPhone(core.db.sequelize, d.account_id, phone) };
}
