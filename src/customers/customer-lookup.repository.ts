import type { Sequelize } from 'sequelize';
import { select } from '../query.js';
import { CUSTOMER_COLUMNS, customerRecord, type CustomerRecord } from './customer.repository.js';
import { riskySql } from './customer.risk.js';

/*
 * Customer records found from what a screen holds (a lead) and the conditions a list of customers filters by. The
 * record itself is customer.repository.ts's (the same columns and shape); the risk rule is customer.risk.ts's.
 */

type RowOfLead = Parameters<typeof customerRecord>[0] & { lead_id: number | string };

/**
 * The customer record of each lead's phone, by lead id, for the leads of `accountId` (null: any account, for an admin).
 * A lead without an E.164 phone has none (absent); so has a lead of another account, whatever its id.
 */
export async function customersOfLeads(
  sequelize: Sequelize,
  accountId: number | null,
  leadIds: number[],
): Promise<Map<number, CustomerRecord>> {
  if (!leadIds.length) return new Map();
  const rows = await select<RowOfLead>(
    sequelize,
    `SELECT l.id AS lead_id, ${CUSTOMER_COLUMNS}
       FROM leads l
       JOIN customers c ON c.account_id = l.account_id AND c.phone_normalized = l.phone_normalized
       JOIN accounts a ON a.id = c.account_id
       LEFT JOIN blocked_phones b ON b.account_id = c.account_id AND b.phone_normalized = c.phone_normalized
      WHERE l.id = ANY($1::bigint[]) AND ($2::int IS NULL OR l.account_id = $2::int)`,
    [leadIds, accountId],
  );
  return new Map(rows.map((r) => [Number(r.lead_id), customerRecord(r)]));
}

/**
 * Conditions over a customers row named `c` (a quoted alias such as `"Customer"`) for a list's filters: risky by the
 * account's thresholds (riskySql, the rule the record's `risky` follows, so a filter and a badge agree), and on the
 * account's blocklist. Each is an SQL boolean expression with no parameter.
 */
export const customerConditions = {
  risky: (c: string) => `EXISTS (SELECT 1 FROM accounts ra WHERE ra.id = ${c}.account_id AND ${riskySql(c, 'ra')})`,
  blocked: (c: string) =>
    `EXISTS (SELECT 1 FROM blocked_phones bp
              WHERE bp.account_id = ${c}.account_id AND bp.phone_normalized = ${c}.phone_normalized)`,
};
