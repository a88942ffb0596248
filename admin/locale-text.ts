import type { Request, RequestHandler } from 'express';
import { DEFAULT_LANGUAGE, fromAcceptLanguage, isLanguage, LANGUAGES, type Language } from '../src/languages.js';
import { pluralCategory, textDirection } from '../src/locale-format.js';
import { TRANSLATIONS } from './panel-locale.js';

export { DEFAULT_LANGUAGE, isLanguage, LANGUAGES, type Language };

/** The cookie that keeps a visitor's language before login (the login page's language links set it). */
export const LANGUAGE_COOKIE = 'leadflow.lang';

/** Languages written right to left: the panel and the pages get `dir="rtl"` for them. */
export function direction(language: Language): 'rtl' | 'ltr' {
  return textDirection(language);
}

function lookUp(tree: unknown, key: string): string | undefined {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' ? node : undefined;
}

/** The words of `key` in one language's file: with a numeric `count`, its plural form `key_<category>` first. */
function wordsIn(language: Language, key: string, count: number | null): string | undefined {
  const tree = TRANSLATIONS[language];
  return (count === null ? undefined : lookUp(tree, `${key}_${pluralCategory(count, language)}`)) ?? lookUp(tree, key);
}

/**
 * The words of `key` (`messages.validation.required`, `pages.login.title`) in `language`, `{{name}}` placeholders
 * filled from `params`; English when the language lacks the key, the key itself when English lacks it too. A numeric
 * `count` picks the plural form as i18next does (`key_one`, `key_other`, Arabic also `_zero`, `_two`, `_few`, `_many`;
 * the plain `key` when the form is missing). The one server-side lookup of admin/locales/*.json (the browser's is
 * AdminJS's i18next over the same files, with the same plural rules).
 */
export function translate(
  language: Language | null | undefined,
  key: string,
  params: Record<string, string | number> = {},
): string {
  const count = typeof params.count === 'number' && Number.isFinite(params.count) ? params.count : null;
  const words =
    wordsIn(language && isLanguage(language) ? language : DEFAULT_LANGUAGE, key, count) ??
    wordsIn(DEFAULT_LANGUAGE, key, count) ??
    key;
  return words.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** A translator bound to one language, for a page that says many things. */
export const translator =
  (language: Language) =>
  (key: string, params?: Record<string, string | number>): string =>
    translate(language, key, params);

/**
 * The language a request is answered in: the signed-in user's choice, else the `leadflow.lang` cookie (a choice made
 * on the login page), else the browser's Accept-Language, else English.
 */
export function requestLanguage(req: Request): Language {
  const chosen = req.user?.language;
  if (isLanguage(chosen)) return chosen;
  const cookie = (req.cookies as Record<string, unknown> | undefined)?.[LANGUAGE_COOKIE];
  if (isLanguage(cookie)) return cookie;
  return fromAcceptLanguage(req.get('accept-language')) ?? DEFAULT_LANGUAGE;
}

/** Keeps the language a page's `?lang=` link chose in the cookie (a year), for the pages shown before login. */
export const rememberLanguageChoice: RequestHandler = (req, res, next) => {
  const lang = req.query.lang;
  if (req.method === 'GET' && isLanguage(lang)) {
    res.cookie(LANGUAGE_COOKIE, lang, { sameSite: 'lax', httpOnly: true, path: '/', maxAge: 365 * 86_400_000 });
    (req.cookies as Record<string, unknown>)[LANGUAGE_COOKIE] = lang;
  }
  next();
};
