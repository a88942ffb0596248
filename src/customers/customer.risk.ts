/**
 * The risk rule of a customer (docs/decisions.md "Customers"), in one place: the words a seller reads and the SQL
 * condition the panel filters by are written side by side, and test/unit/customer-risk.test.ts checks they agree.
 *
 * A customer is risky when at least `min_returns` of its parcels came back, or when at least `min_orders` of its orders
 * are finished (delivered or returned) and under `min_delivery_rate` % of them were delivered. Thresholds are per
 * account (columns risk_min_returns, risk_min_orders, risk_min_delivery_rate of accounts).
 */
import type { RiskThresholds } from '../accounts/risk-thresholds.js';

export interface OrderOutcomes {
  delivered: number;
  returned: number;
}

/** Delivered of finished orders in whole per cent, or null before any order is finished. */
export function deliveryRate({ delivered, returned }: OrderOutcomes): number | null {
  const finished = delivered + returned;
  return finished === 0 ? null : Math.round((100 * delivered) / finished);
}

/**
 * Why a customer is risky, as data (empty when it is not): each condition of the rule that holds, with its figures and
 * the account's limit, so a reader in any language can be told (the panel words them through admin/locales).
 */
export type RiskFinding =
  | { kind: 'returns'; returned: number; limit: number }
  | { kind: 'delivery'; delivered: number; finished: number; rate: number; limit: number };

/** The conditions of the rule that hold for `o` under `t`, returns first. */
export function riskFindings(o: OrderOutcomes, t: RiskThresholds): RiskFinding[] {
  const findings: RiskFinding[] = [];
  if (o.returned >= t.risk_min_returns)
    findings.push({ kind: 'returns', returned: o.returned, limit: t.risk_min_returns });
  const finished = o.delivered + o.returned;
  // compared in exact fractions (delivered / finished < rate / 100), as the SQL does, not on the rounded per cent
  if (finished >= t.risk_min_orders && 100 * o.delivered < t.risk_min_delivery_rate * finished)
    findings.push({
      kind: 'delivery',
      delivered: o.delivered,
      finished,
      rate: deliveryRate(o)!,
      limit: t.risk_min_delivery_rate,
    });
  return findings;
}

/** One finding in English words (REST answers, webhooks). */
function findingWords(f: RiskFinding): string {
  if (f.kind === 'returns')
    return `${f.returned} ${f.returned === 1 ? 'parcel' : 'parcels'} returned (limit ${f.limit})`;
  return `${f.delivered} of ${f.finished} orders delivered (${f.rate} %, under ${f.limit} %)`;
}

/** Why a customer is risky, in words (both reasons when both hold), or null when it is not. */
export function riskReason(o: OrderOutcomes, t: RiskThresholds): string | null {
  const findings = riskFindings(o, t);
  return findings.length ? findings.map(findingWords).join('; ') : null;
}

/**
 * The same rule as an SQL condition over a customers row `c` and its account's row `a`
 * (`FROM customers c JOIN accounts a ON a.id = c.account_id`).
 */
export function riskySql(c = 'c', a = 'a'): string {
  return `(${c}.returned >= ${a}.risk_min_returns
           OR (${c}.delivered + ${c}.returned >= ${a}.risk_min_orders
               AND 100 * ${c}.delivered < ${a}.risk_min_delivery_rate * (${c}.delivered + ${c}.returned)))`;
}
