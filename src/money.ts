import Joi from 'joi';

// Money (docs/cash.md): amounts are given and shown in the account's currency with at most two decimals, and kept as
// integer cents. A string, a negative figure, NaN or more than MONEY_MAX is refused, never rounded.

/** The largest amount a line, a fee or a tariff may carry (one million in the account's currency). */
export const MONEY_MAX = 1_000_000;

/** Cents of an amount the schemas let through (two decimals at most: the rounding only removes float noise). */
export const toCents = (units: number): number => Math.round(units * 100);
/** An amount of cents as the API shows it: a number of the currency's units. */
export const fromCents = (cents: number | string | null): number | null =>
  cents === null ? null : Number(cents) / 100;

/** An amount: a JSON number (never a string), 0 to MONEY_MAX, with at most two decimals. */
export const money = () =>
  Joi.number()
    .strict()
    .min(0)
    .max(MONEY_MAX)
    .custom(
      (v: number, h) => (Math.abs(v * 100 - Math.round(v * 100)) < 1e-6 ? v : h.error('number.precision')),
      'two decimals',
    )
    .messages({ 'number.precision': '{{#label}} must have at most 2 decimals.' });

/** A currency: three letters of ISO 4217, upper case (MAD, EUR, XOF…). */
export const currency = () =>
  Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z]{3}$/)
    .messages({ 'string.pattern.base': '{{#label}} must be three letters (ISO 4217), like MAD.' });
