import { Op, type WhereOptions } from 'sequelize';
import { phoneSearchDigits } from '../../src/leads/phone.js';
import { likeContains } from '../../src/search-clause.js';
import { isCalendarDate } from '../../src/validation.js';

/*
 * The panel's filter values, parsed by column type for the scoped adapter (scoped-resource.ts): a value that does not
 * parse is null and matches nothing, so a tampered filter never reaches the database as an error.
 */

/** Sequelize integer types and their largest value (a bigger id is "not found", not a database error). */
const INT_MAX: Record<string, bigint> = {
  INTEGER: 2_147_483_647n,
  BIGINT: 9_223_372_036_854_775_807n,
  SMALLINT: 32_767n,
};
const MAX_TEXT = 200;

export const isIntType = (typeKey: string): boolean => typeKey in INT_MAX;

/** '12' within the column's range → 12 (as text for bigints), anything else → null. */
export function intValue(value: unknown, typeKey: string): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value);
  if (!/^[0-9]{1,19}$/.test(text)) return null;
  return BigInt(text) <= (INT_MAX[typeKey] ?? 0n) ? String(BigInt(text)) : null;
}

/** A real calendar date within the app's range (the one rule, src/validation.ts), else null: matches nothing. */
export function dateValue(value: unknown): Date | null {
  return typeof value === 'string' && isCalendarDate(value) ? new Date(value) : null;
}

export function likePattern(value: unknown): string | null {
  if (typeof value !== 'string' || !value || value.length > MAX_TEXT || value.includes('\u0000')) return null;
  return likeContains(value);
}

/** A phone filter also finds the number typed another way, in the stored E.164 form (src/leads/phone.ts). */
export function phoneCondition(value: unknown): WhereOptions | null {
  const pattern = likePattern(value);
  if (pattern === null) return null;
  const digits = phoneSearchDigits(value as string);
  const typed = { phone: { [Op.iLike]: pattern } };
  return digits ? { [Op.or]: [typed, { phone_normalized: { [Op.like]: likeContains(digits) } }] } : typed;
}
