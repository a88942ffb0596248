import { Op, type WhereOptions } from 'sequelize';
import { phoneSearchDigits } from '../../src/phone.js';
import { likeContains } from '../../src/like-pattern.js';
import { isCalendarDate } from '../../src/validation.js';
import { wallTimeToUtc } from '../../src/time-zones.js';

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

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date filter `{from, to}` as conditions: a day (`2026-12-01`, what the panel's date filter sends) is bounded in
 * `zone` (the viewer's account zone), from its midnight to the next day's; a date-time is taken as it is. Null when
 * neither end parses (matches nothing).
 */
export function dateRange(value: unknown, zone: string): Record<symbol, Date> | null {
  const range = (value && typeof value === 'object' ? value : {}) as { from?: unknown; to?: unknown };
  const from = dateValue(range.from);
  const to = dateValue(range.to);
  if (!from && !to) return null;
  const out: Record<symbol, Date> = {};
  if (from) out[Op.gte] = DAY.test(String(range.from)) ? wallTimeToUtc(String(range.from), zone)! : from;
  if (to && DAY.test(String(range.to))) {
    const next = new Date(Date.parse(`${String(range.to)}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    out[Op.lt] = wallTimeToUtc(next, zone)!;
  } else if (to) out[Op.lte] = to;
  return out;
}

export function likePattern(value: unknown): string | null {
  if (typeof value !== 'string' || !value || value.length > MAX_TEXT || value.includes('\u0000')) return null;
  return likeContains(value);
}

/** A phone filter also finds the number typed another way, in the stored E.164 form (src/phone.ts). */
export function phoneCondition(value: unknown): WhereOptions | null {
  const pattern = likePattern(value);
  if (pattern === null) return null;
  const digits = phoneSearchDigits(value as string);
  const typed = { phone: { [Op.iLike]: pattern } };
  return digits ? { [Op.or]: [typed, { phone_normalized: { [Op.like]: likeContains(digits) } }] } : typed;
}
