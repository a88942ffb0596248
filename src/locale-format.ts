/**
 * Numbers, amounts, percentages and plural forms in the reader's language (issue 41), and the direction its words are
 * written in. Pure (Intl only): the server's texts and the panel's components (bundled for the browser) use these same
 * functions, so a figure reads the same wherever it is shown.
 */

/** The panel's languages → the locale their dates and numbers are written in ('en' writes day before month). */
const LOCALES: Readonly<Record<string, string>> = { en: 'en-GB', fr: 'fr-FR', ar: 'ar-MA' };

/** The Intl locale of a panel language (`ar` → `ar-MA`); English (en-GB) for none. */
export const localeOf = (language?: string | null): string => LOCALES[language || 'en'] ?? language ?? LOCALES.en;

/**
 * The direction a language's text runs in: Arabic right to left. A date written in Arabic (whose Intl text holds
 * right-to-left marks) is shown in this direction, never inside a left-to-right isolate, which scrambles it.
 */
export const textDirection = (language?: string | null): 'rtl' | 'ltr' => (language === 'ar' ? 'rtl' : 'ltr');

const cache = new Map<string, Intl.NumberFormat | Intl.PluralRules>();
function cached<T extends Intl.NumberFormat | Intl.PluralRules>(key: string, make: () => T): T {
  let made = cache.get(key) as T | undefined;
  if (!made) cache.set(key, (made = make()));
  return made;
}

const numeric = (value: number | string | null | undefined): number | null => {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/** A count or a measure: `1 249` in French (with the narrow no-break space Intl writes), `1,249` in English. */
export function formatNumber(
  value: number | string | null | undefined,
  language?: string | null,
  maxDecimals = 1,
): string {
  const n = numeric(value);
  if (n === null) return '—';
  const locale = localeOf(language);
  const f = cached(
    `n|${locale}|${maxDecimals}`,
    () => new Intl.NumberFormat(locale, { maximumFractionDigits: maxDecimals }),
  );
  return f.format(n);
}

/** An amount with its two decimals: `249,00` in French, `249.00` in English (no currency: prices carry none). */
export function formatMoney(value: number | string | null | undefined, language?: string | null): string {
  const n = numeric(value);
  if (n === null) return '—';
  const locale = localeOf(language);
  const f = cached(`m|${locale}`, () => {
    return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  });
  return f.format(n);
}

/** A percentage given out of 100 (41.2): `41,2 %` in French, `41.2%` in English, Intl's Arabic for 'ar-MA'. */
export function formatPercent(value: number | string | null | undefined, language?: string | null): string {
  const n = numeric(value);
  if (n === null) return '—';
  const locale = localeOf(language);
  const f = cached(`p|${locale}`, () => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }));
  // 41.2 / 100 is 0.41200000000000003: the percent format rounds it back to 41.2
  return f.format(n / 100);
}

/** The plural category of `count` in `language` (`one`, `other`; Arabic also `zero`, `two`, `few`, `many`). */
export function pluralCategory(count: number, language?: string | null): Intl.LDMLPluralRule {
  const locale = localeOf(language);
  return cached(`r|${locale}`, () => new Intl.PluralRules(locale)).select(count);
}

/** Every plural category a language has (i18next looks `key_<category>` up with the same rules). */
export function pluralCategories(language?: string | null): Intl.LDMLPluralRule[] {
  const locale = localeOf(language);
  return cached(`r|${locale}`, () => new Intl.PluralRules(locale)).resolvedOptions().pluralCategories;
}

const regionNames = new Map<string, Intl.DisplayNames>();
/**
 * A country's name for its ISO 3166 code in the reader's language: `MA` → "Morocco", "Maroc", "المغرب". The code
 * itself when Intl has no name for it (or it is no code at all), '—' for none.
 */
export function countryName(code: string | null | undefined, language?: string | null): string {
  if (!code) return '—';
  const locale = localeOf(language);
  let names = regionNames.get(locale);
  if (!names) regionNames.set(locale, (names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' })));
  try {
    return names.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/**
 * Whether a shown value reads left to right whatever its first characters: an e-mail, a URL, a phone number. The
 * panel isolates it with dir="ltr"; any other text (an address, a city, a name) follows its own letters (dir="auto").
 */
export const isLeftToRightValue = (text: string): boolean =>
  /^[^\s@]+@[^\s@]+$/.test(text) || /^[a-z][a-z\d+.-]*:\/\/\S+$/i.test(text) || /^\+?[\d\s().-]{6,}$/.test(text);
