/** The languages of the panel and its pages (admin/locales/<language>.json); English is the fallback. */
export const LANGUAGES = ['en', 'fr', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The first language of an Accept-Language header (`fr-MA,fr;q=0.9,ar;q=0.8`) the panel has, by quality; null when
 * none fits (a header without a known language, or no header).
 */
export function fromAcceptLanguage(header: string | undefined | null): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { base: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), i };
    })
    .filter((t) => t.q > 0 && isLanguage(t.base))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return (ranked[0]?.base as Language | undefined) ?? null;
}
