import type { FieldErrors } from '../errors.js';
import { addError, inputErrors } from '../validation.js';
import { UTM_FIELDS } from './form-snippet.js';
import { fitJson } from './store-payload.js';

/** The fields the form endpoint reads itself; any other becomes a {key, value} of the lead's data. */
const CONTACT = ['phone', 'full_name', 'city', 'area', 'address'] as const;
const OWN = new Set<string>([...CONTACT, 'sku', 'quantity', 'website', ...UTM_FIELDS]);

/** Bounds of what a form adds to a lead's data (the spec's data entries: key and value 1 to 100 characters). */
export const FORM_DATA = { maxKeys: 20, maxLength: 100 } as const;
/** A UTM value longer than this is cut: it comes from an address, not from the visitor's typing. */
const UTM_MAX = 100;

export interface ReadForm {
  /** A lead item for prepareLeads, products still without the catalogue's price. */
  item: Record<string, unknown> & { data: { key: string; value: string }[] };
  sku: string | null;
  quantity: unknown;
  utm: Record<string, string> | null;
  honeypot: boolean;
  errors: FieldErrors;
}

/** A submitted value as text: trimmed; a number or boolean (JSON) as written; a list (a field sent twice) is not. */
function text(value: unknown): string | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/**
 * The honeypot counts as filled only with something in it: absent, null, false and blank text are empty (a script that
 * sends the form as JSON may write an empty field so); any other value is a bot's.
 */
const filled = (value: unknown): boolean =>
  !(value === undefined || value === null || value === false || (typeof value === 'string' && value.trim() === ''));

/** Extra fields into data: a checkbox group (a list of texts) joined; empty ones dropped; bounded. */
function dataOf(fields: Record<string, unknown>, errors: FieldErrors) {
  const data: { key: string; value: string }[] = [];
  for (const [key, raw] of Object.entries(fields)) {
    if (OWN.has(key)) continue;
    const value = Array.isArray(raw) && raw.every((v) => typeof v === 'string') ? raw.join(', ').trim() : text(raw);
    if (value === null) addError(errors, key, `The ${key.slice(0, 100)} field must be text.`);
    if (!value) continue;
    if (key.length > FORM_DATA.maxLength)
      addError(errors, 'form', `A field name may not be longer than ${FORM_DATA.maxLength} characters.`);
    else if (value.length > FORM_DATA.maxLength)
      addError(errors, key, `The ${key} field must not be greater than ${FORM_DATA.maxLength} characters.`);
    data.push({ key, value });
  }
  if (data.length > FORM_DATA.maxKeys)
    addError(errors, 'form', `The form may not have more than ${FORM_DATA.maxKeys} extra fields.`);
  return data;
}

function utmOf(fields: Record<string, unknown>): Record<string, string> | null {
  const utm: Record<string, string> = {};
  for (const name of UTM_FIELDS) {
    const value = text(fields[name]);
    if (value) utm[name] = value.slice(0, UTM_MAX);
  }
  return Object.keys(utm).length ? utm : null;
}

/**
 * Reads a form's fields (urlencoded: texts and lists; JSON: anything) into a lead item, its UTM fields and whether the
 * honeypot was filled. Empty texts count as absent (a form sends its empty inputs); a list or an object where one text
 * is expected is an error, as is text with control characters; everything else is left to the spec's rules.
 */
export function readForm(body: unknown): ReadForm {
  const fields: Record<string, unknown> =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const errors = inputErrors(fields);
  const item: Record<string, unknown> = {};
  for (const name of CONTACT) {
    const value = text(fields[name]);
    if (value === null) addError(errors, name, `The ${name} field must be a string.`);
    else if (value) item[name] = value;
  }
  const sku = text(fields.sku);
  if (sku === null) addError(errors, 'sku', 'The sku field must be a string.');
  const quantity = text(fields.quantity);
  const honeypot = filled(fields.website);
  const data = Object.keys(errors).length ? [] : dataOf(fields, errors);
  return {
    item: { ...item, data },
    sku: sku || null,
    quantity: quantity === null ? fields.quantity : quantity ? Number(quantity) || quantity : undefined,
    utm: utmOf(fields),
    honeypot,
    errors,
  };
}

// NUL and the other controls, and lone surrogates: jsonb refuses NUL and a lone surrogate escape.
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const UNFIT_FOR_LOG = /[\u0000-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The submission as the intake log keeps it: at most 40 fields, texts cut to 255, nothing jsonb would refuse. A value
 * that is not text is kept as its JSON cut to a bounded depth (fitJson): JSON.stringify of a value thousands of levels
 * deep overflows the stack, and the refusal of such a submission must still be logged (issue 40, finding 7).
 */
export function loggedFields(body: unknown): Record<string, unknown> | null {
  if (!body || typeof body !== 'object') return null;
  const clean = (s: string) => s.slice(0, 255).replace(UNFIT_FOR_LOG, '\uFFFD');
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body).slice(0, 40)) {
    const shown = typeof value === 'string' ? value : JSON.stringify(fitJson(value ?? null));
    kept[clean(key)] = clean(shown ?? '');
  }
  return kept;
}
