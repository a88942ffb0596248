import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import type { RiskThresholds } from '../accounts/risk-thresholds.js';
import { deliveryRate, riskFindings, riskReason, type RiskFinding } from './customer.risk.js';

/**
 * What LeadFlow knows of the person behind a phone in one account (docs/decisions.md "Customers"): the figures of
 * the `customers` row the triggers of migration 20261208100000 keep, the risk rule of the account, and the blocklist.
 */
/** The counts of a customer: its leads (of them confirmed) and orders (of them delivered, returned, canceled). */
export interface CustomerCounts {
  leads: number;
  confirmed: number;
  orders: number;
  delivered: number;
  returned: number;
  canceled: number;
}

export interface CustomerRecord extends CustomerCounts {
  /** E.164. */
  phone: string;
  /** Delivered of finished (delivered or returned) orders in whole per cent; null before any is finished. */
  delivery_rate: number | null;
  last_order: { reference: string; status: string; at: string } | null;
  first_seen_at: string | null;
  last_seen_at: string | null;
  /** The city of the latest lead (of the latest order when there is no lead). */
  city: string | null;
  risky: boolean;
  risk_reason: string | null;
  /** The same reasons as data (kind, figures, limit), for words in the reader's language; empty when not risky. */
  risk_findings: RiskFinding[];
  blocked: boolean;
  block_reason: string | null;
}

interface CustomerRow extends RiskThresholds, CustomerCounts {
  phone_normalized: string;
  first_seen_at: Date | string | null;
  last_seen_at: Date | string | null;
  city: string | null;
  last_order_reference: string | null;
  last_order_status: string | null;
  last_order_at: Date | string | null;
  block_reason: string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A customers row (with its account's thresholds and block) as the record callers show. */
export function customerRecord(r: CustomerRow): CustomerRecord {
  const reason = riskReason(r, r);
  return {
    phone: r.phone_normalized,
    leads: r.leads,
    confirmed: r.confirmed,
    orders: r.orders,
    delivered: r.delivered,
    returned: r.returned,
    canceled: r.canceled,
    delivery_rate: deliveryRate(r),
    last_order:
      r.last_order_reference && r.last_order_status && r.last_order_at
        ? { reference: r.last_order_reference, status: r.last_order_status, at: iso(r.last_order_at)! }
        : null,
    first_seen_at: iso(r.first_seen_at),
    last_seen_at: iso(r.last_seen_at),
    city: r.city,
    risky: reason !== null,
    risk_reason: reason,
    risk_findings: riskFindings(r, r),
    blocked: r.block_reason !== null,
    block_reason: r.block_reason,
  };
}

/** The columns of a customers row `c`, its account `a` and its block `b` that customerRecord reads. */
export const CUSTOMER_COLUMNS = `c.phone_normalized, c.leads, c.confirmed, c.orders, c.delivered, c.returned,
       c.canceled, c.first_seen_at, c.last_seen_at, c.city, c.last_order_reference, c.last_order_status,
       c.last_order_at, a.risk_min_returns, a.risk_min_orders, a.risk_min_delivery_rate, b.reason AS block_reason`;

/**
 * The customer record of each phone (E.164) of one account that has one, by phone: a phone without leads and orders in
 * the account (or not in E.164) is absent. `accountId` comes from the actor's scope; one primary-key probe per phone.
 */
export async function customersByPhones(
  sequelize: Sequelize,
  accountId: number,
  phones: string[],
  transaction?: Transaction,
): Promise<Map<string, CustomerRecord>> {
  const wanted = [...new Set(phones.filter((p) => typeof p === 'string' && p.length > 0))];
  if (!wanted.length) return new Map();
  const rows = await select<CustomerRow>(
    sequelize,
    `SELECT ${CUSTOMER_COLUMNS}
       FROM customers c JOIN accounts a ON a.id = c.account_id
       LEFT JOIN blocked_phones b ON b.account_id = c.account_id AND b.phone_normalized = c.phone_normalized
      WHERE c.account_id = $1 AND c.phone_normalized = ANY($2::text[])`,
    [accountId, wanted],
    transaction,
  );
  return new Map(rows.map((r) => [r.phone_normalized, customerRecord(r)]));
}

/** The customer record of one phone of an account, or null (no E.164 phone, or no lead or order of it there). */
export async function customerOfPhone(
  sequelize: Sequelize,
  accountId: number,
  phone: string | null,
  transaction?: Transaction,
): Promise<CustomerRecord | null> {
  if (!phone) return null;
  return (await customersByPhones(sequelize, accountId, [phone], transaction)).get(phone) ?? null;
}
