import { likeContains } from './like-pattern.js';
import { phoneSearchDigits } from './phone.js';

/**
 * The spec's `search_by` / `keyWord` rule, shared by the lead and order lists: reference exact, phone by digits
 * contained in the E.164 form (a whole number typed any way is read in `phoneCountry`, src/phone.ts),
 * full_name and city case-insensitively contained (trigram indexes), tracking_number exact.
 */
export function searchClause(
  alias: string,
  searchBy: string,
  keyWord: string,
  p: (v: unknown) => string,
  phoneCountry?: string,
): string {
  switch (searchBy) {
    case 'phone': {
      const digits = phoneSearchDigits(keyWord, phoneCountry);
      return digits ? `${alias}.phone_normalized LIKE ${p(likeContains(digits))}` : 'false';
    }
    case 'full_name':
      return `${alias}.full_name ILIKE ${p(likeContains(keyWord))}`;
    case 'city':
      return `${alias}.city ILIKE ${p(likeContains(keyWord))}`;
    case 'tracking_number':
      return `${alias}.tracking_number = ${p(keyWord)}`;
    default:
      return `${alias}.reference = ${p(keyWord.toUpperCase())}`;
  }
}
