import {
  getCountries,
  parseIncompletePhoneNumber,
  parsePhoneNumberFromString,
  type CountryCode,
} from 'libphonenumber-js';

/** The countries libphonenumber knows (ISO 3166 alpha-2): what `accounts.phone_country` may hold. */
export const PHONE_COUNTRIES: readonly string[] = getCountries();

export const isPhoneCountry = (c: unknown): c is CountryCode =>
  typeof c === 'string' && (PHONE_COUNTRIES as string[]).includes(c);

/** A phone as kept: what was typed (shown to people) and its E.164 form (duplicates, search). */
export interface NormalizedPhone {
  phone: string;
  phone_normalized: string;
}

/** A phone as stored: a possible one with its E.164 form, an uncallable one as typed with none (null). */
export interface KeptPhone {
  phone: string;
  phone_normalized: string | null;
}

/**
 * A number a spreadsheet wrote in exponent notation ("6.00000002E+8", "6,00000002E+8" in a decimal-comma locale) or
 * as a float ("600000002.0", what pandas writes): only an integer is a phone.
 */
const EXPONENT = /^\d+([.,]\d+)?[eE]\+?\d+$/;
const FLOAT = /^(\d+)\.0+$/;

/** What a spreadsheet number cell (exceljs gives a number, a CSV saved from it the digits) reads as, or null. */
function cellDigits(typed: string | number): string | null {
  if (typeof typed === 'number') return Number.isSafeInteger(typed) && typed > 0 ? String(typed) : null;
  const float = FLOAT.exec(typed);
  if (float) return float[1];
  if (!EXPONENT.test(typed)) return typed;
  const n = Number(typed.replace(',', '.'));
  return Number.isSafeInteger(n) ? String(n) : typed;
}

/**
 * What was typed (a string, or a spreadsheet's number) read as a phone of `country` (its national numbers, or any
 * number written with `+` or the country's international prefix), or null when no such number is possible: wrong
 * length for its country, letters, an unknown country code. "Possible" (length), not "valid" (allocated ranges):
 * the ranges change with each numbering-plan update, and an import must not start refusing last year's customers.
 *
 * A national number that lost its trunk prefix on the way through a spreadsheet (`0600000002` stored as the number
 * 600000002) gets it back in the displayed form; the E.164 form is the same either way.
 */
export function normalizePhone(typed: string | number, country: string): NormalizedPhone | null {
  const text = cellDigits(typeof typed === 'string' ? typed.trim() : typed);
  if (!text) return null;
  const defaultCountry = isPhoneCountry(country) ? country : undefined;
  const parsed = parsePhoneNumberFromString(text, { defaultCountry, extract: false });
  if (!parsed?.isPossible()) return null;
  // "0600000002;0611111111" parses as one number with an extension: a second phone is no extension
  if (parsed.ext && parsePhoneNumberFromString(parsed.ext, { defaultCountry })?.isPossible()) return null;
  let phone = text;
  if (/^\d+$/.test(text) && parsed.country === country) {
    // the national form's digits, trunk prefix included ("06 00 00 00 02" → 0600000002); longer only by that prefix
    const national = parsed.format('NATIONAL').replace(/\D/g, '');
    if (national.length > text.length && national.endsWith(text) && text === parsed.nationalNumber) phone = national;
  }
  return { phone, phone_normalized: parsed.number };
}

/**
 * Every phone the spec accepts is kept (docs/decisions.md, "Phones"): a possible one normalised, any other (an
 * uncallable phone) as typed, without an E.164 form, so duplicates and search never meet it.
 */
export function keepPhone(typed: string, country: string): KeptPhone {
  return normalizePhone(typed, country) ?? { phone: typed.trim(), phone_normalized: null };
}

/** Why a lead with an uncallable phone was created `wrong`: its first history entry's note, by `system`. */
export const uncallableNote = (country: string) =>
  `Not a possible phone number (national numbers of ${country}, or international with +): kept as typed, without an ` +
  'E.164 form, and marked wrong.';

/**
 * The digits a phone search looks for inside the stored E.164 form: a whole number typed any way (`0600000002`,
 * `+212600000002`, `600000002`) becomes its E.164 digits; a fragment loses its international (`00`) or trunk
 * prefix (a leading `0`, the common one), which the stored form never holds.
 */
export function phoneSearchDigits(keyWord: string, country?: string): string {
  const whole = normalizePhone(keyWord, country ?? '');
  if (whole) return whole.phone_normalized.slice(1);
  // ASCII digits of any the user typed ("٠٩١" → 091), as the stored form holds them
  const digits = parseIncompletePhoneNumber(keyWord).replace(/\D/g, '');
  if (keyWord.trim().startsWith('+')) return digits;
  return digits.replace(/^00?/, '');
}
