import { fitText } from '../validation.js';

/**
 * Reading a shop's webhook body, which LeadFlow does not control: every value is checked for its type before it is
 * used, and text is made fit to store (fitText), because a shop cannot be sent a refusal it would act on.
 */
export type Json = Record<string, unknown>;

/** `v` when it is a plain JSON object, else an empty one (a missing or odd address reads as no address). */
export const record = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A trimmed, non-empty text (a finite number as its decimal text), fit to store; else null. */
export function text(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return null;
  const t = fitText(v).trim();
  return t || null;
}

/** An id as text; 0 is none (WooCommerce's `variation_id` of a product without variations). */
export const idText = (v: unknown): string | null => (v === 0 || v === '0' ? null : text(v));

/** The non-empty parts joined by a space (first and last name), or null. */
export const joined = (...parts: unknown[]): string | null =>
  parts
    .map(text)
    .filter((p) => p !== null)
    .join(' ') || null;

/** A decimal amount (Shopify sends "199.00", WooCommerce 199 or "199.00"), rounded to cents; else null. */
export function amount(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,12}(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.round(n * 100) / 100 : null;
}

/** A whole number of items, else null. */
export const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);

/** Deeper than this, a kept payload holds null: nothing a shop sends nests so far, and the walk stays bounded. */
const KEPT_DEPTH = 24;

/**
 * A parsed body as the intake log can store it: jsonb refuses NUL and lone surrogates (a 500 before this), so every
 * string and key is made fit; what nests deeper than KEPT_DEPTH is cut.
 */
export function fitJson(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return fitText(v);
  if (!v || typeof v !== 'object') return v;
  if (depth >= KEPT_DEPTH) return null;
  if (Array.isArray(v)) return v.map((x) => fitJson(x, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [fitText(k), fitJson(x, depth + 1)]));
}

/** The body as JSON, or undefined when it is not JSON (a body of one JSON value is the shop's, odd or not). */
export function parseBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

/**
 * The UTM fields of a landing page address (Shopify's `landing_site`, e.g. `/products/x?utm_source=facebook`), each
 * cut to 100 characters; null when it names none or is not an address.
 */
export function utmOf(landing: string | null): Record<string, string> | null {
  if (!landing) return null;
  let query: URLSearchParams;
  try {
    query = new URL(landing, 'https://shop.invalid').searchParams;
  } catch {
    return null;
  }
  const found = UTM_KEYS.flatMap((k) => {
    const value = text(query.get(k));
    return value ? [[k, value.slice(0, 100)] as const] : [];
  });
  return found.length ? Object.fromEntries(found) : null;
}
