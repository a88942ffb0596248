/**
 * What the panel shows for a value that holds nothing: an em dash, never the raw `[]`, `{}`, `null` or `""` of an
 * empty JSON column (a lead source without default products or mapping, an empty payload, a lead without custom data).
 * The one rule of the components that render JSON-ish values (source-parts, value-list, lead-parts' custom data).
 */
export const EMPTY_MARK = '—';

/** Nothing to show: null, undefined, blank text, an empty list or object, or the JSON text of one. */
export function isEmptyValue(raw: unknown): boolean {
  if (raw === null || raw === undefined) return true;
  if (Array.isArray(raw)) return raw.length === 0;
  if (typeof raw === 'object') return Object.keys(raw).length === 0;
  if (typeof raw !== 'string') return false;
  const text = raw.trim();
  if (!text) return true;
  if (!/^(\[|\{|"|null$)/.test(text)) return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? !value.trim() : isEmptyValue(value);
  } catch {
    return false;
  }
}

/** The value as text, or the em dash when it holds nothing. */
export const shownOrEmpty = (raw: unknown): string => (isEmptyValue(raw) ? EMPTY_MARK : String(raw));
