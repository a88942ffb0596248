import Joi from 'joi';
import { ROLES, type Role } from '../actor.js';
import type { RiskThresholds } from './risk-thresholds.js';
import { PHONE_COUNTRIES } from '../phone.js';
import { timeZoneNames } from '../time-zones.js';
import { currency, money } from '../money.js';

/** ISO 3166 alpha-2, one libphonenumber knows ("ma" is read as MA). */
const phoneCountry = Joi.string()
  .trim()
  .uppercase()
  .valid(...PHONE_COUNTRIES)
  .messages({ 'any.only': 'The {{#label}} must be a country code such as MA or FR.' });

/** An IANA time zone name the runtime knows (Intl.supportedValuesOf('timeZone'), and UTC). */
const timeZone = Joi.string()
  .trim()
  .valid(...timeZoneNames())
  .messages({ 'any.only': 'The {{#label}} must be a time zone such as Africa/Casablanca or Europe/Paris.' });

export const accountCreateSchema = Joi.object({
  name: Joi.string().trim().min(2).max(100).required(),
  phone_country: phoneCountry,
  time_zone: timeZone,
});
export interface AccountCreateInput {
  name: string;
  /** Default: DEFAULT_COUNTRY. */
  phone_country?: string;
  /** Default: the phone country's zone (src/time-zones.ts). */
  time_zone?: string;
}

/** The thresholds of the risk rule (src/customers/customer.risk.ts), whole numbers. */
const threshold = (min: number, max: number) => Joi.number().integer().min(min).max(max);

/** docs/stock.md: `track` shows what is available and never refuses; `enforce` refuses an order it cannot reserve. */
export const STOCK_POLICIES = ['track', 'enforce'] as const;
export type StockPolicy = (typeof STOCK_POLICIES)[number];

export const accountUpdateSchema = Joi.object({
  name: Joi.string().trim().min(2).max(100),
  phone_country: phoneCountry,
  time_zone: timeZone,
  risk_min_returns: threshold(1, 1000),
  risk_min_orders: threshold(1, 1000),
  // 0: the delivery rate never makes a customer risky
  risk_min_delivery_rate: threshold(0, 100),
  stock_policy: Joi.string().valid(...STOCK_POLICIES),
  // docs/cash.md: what the buyer pays the courier on top of the order's total, in the account's currency
  buyer_delivery_fee: money(),
  currency: currency(),
});
/** A form's text is read as a number by the validation ("3" is 3; "" and "3.5" are refused). */
export type AccountUpdateInput = Partial<Required<AccountCreateInput>> &
  Partial<Record<keyof RiskThresholds, number | string>> & {
    stock_policy?: StockPolicy;
    buyer_delivery_fee?: number;
    currency?: string;
  };

export const userCreateSchema = Joi.object({
  account_id: Joi.number().integer().positive().required(),
  role: Joi.string()
    .valid(...ROLES)
    .required(),
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).required(),
  password: Joi.string().min(8).max(200).required(),
  name: Joi.string().trim().min(2).max(100).required(),
});
export interface UserCreateInput {
  account_id: number;
  role: Role;
  email: string;
  password: string;
  name: string;
}

export const userUpdateSchema = Joi.object({
  role: Joi.string().valid(...ROLES),
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254),
  password: Joi.string().min(8).max(200),
  name: Joi.string().trim().min(2).max(100),
  active: Joi.boolean(),
});
export type UserUpdateInput = Partial<Omit<UserCreateInput, 'account_id'>> & { active?: boolean };
