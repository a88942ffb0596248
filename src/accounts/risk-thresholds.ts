/**
 * The thresholds of the customers' risk rule, per account (columns risk_min_returns, risk_min_orders,
 * risk_min_delivery_rate of accounts); the rule itself is src/customers/customer.risk.ts.
 */
export interface RiskThresholds {
  risk_min_returns: number;
  risk_min_orders: number;
  risk_min_delivery_rate: number;
}

/** What a new account starts with (the columns' defaults, migration 20261208100000). */
export const DEFAULT_RISK: Readonly<RiskThresholds> = Object.freeze({
  risk_min_returns: 2,
  risk_min_orders: 3,
  risk_min_delivery_rate: 50,
});
