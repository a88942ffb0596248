import type { Locale } from 'adminjs';
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES } from '../src/languages.js';
import ar from './locales/ar.json' with { type: 'json' };
import en from './locales/en.json' with { type: 'json' };
import fr from './locales/fr.json' with { type: 'json' };
import { PHONE_COUNTRIES } from '../src/phone.js';
import { countryName } from '../src/locale-format.js';

/**
 * The panel's words live in one file per language under admin/locales/ (AdminJS's translation shape: labels,
 * actions, buttons, properties, messages, resources, components), so a translator edits JSON, not code.
 * AdminJS looks a text up under `resources.<id>.<kind>.<name>` first, then `<kind>.<name>`, and otherwise writes the
 * name in start case; en.json names every resource, page, property and action the panel shows, so none is guessed.
 * fr.json and ar.json have the same keys (test/unit/locales.test.ts); a key one of them lacks is shown in English.
 */
export const TRANSLATIONS = { en: withCountries(en, 'en'), fr: withCountries(fr, 'fr'), ar: withCountries(ar, 'ar') };

/**
 * A language's words with the names of the countries (`labels.phone_country.MA`: "Morocco", "Maroc", "المغرب"), which
 * AdminJS's selects, filters and show pages look up for a country code: Intl's names, not 245 lines per file.
 */
function withCountries<T extends { labels: object }>(
  words: T,
  language: string,
): T & { labels: T['labels'] & { phone_country: Record<string, string> } } {
  const names = Object.fromEntries(PHONE_COUNTRIES.map((code) => [code, countryName(code, language)]));
  return { ...words, labels: { ...words.labels, phone_country: names } };
}

/**
 * AdminJS's locale for one signed-in user (AdminJS calls it with the currentAdmin of each page it renders): the
 * language that user reads (admin/panel-guards.ts resolves it from their choice or the browser), every language for
 * the top bar's selector, English behind a missing word.
 */
export function panelLocale(admin?: object): Locale {
  const language = (admin as { language?: unknown } | undefined)?.language;
  const chosen = isLanguage(language) ? language : DEFAULT_LANGUAGE;
  return {
    language: chosen,
    // AdminJS hands `language` to i18next as the fallback only: without `lng` the browser would start in English
    lng: chosen,
    availableLanguages: [...LANGUAGES],
    fallbackLng: DEFAULT_LANGUAGE,
    translations: TRANSLATIONS,
  };
}
