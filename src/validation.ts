import Joi from 'joi';
import { ValidationError, type FieldErrors } from './errors.js';

/** The dates any input may name: PostgreSQL stores far more, but nothing in this product is outside these years. */
export const DATE_RANGE = { minYear: 1970, maxYear: 9999 } as const;
const DATE_RANGE_TEXT = `${DATE_RANGE.minYear}-01-01 and ${DATE_RANGE.maxYear}-12-31`;

/** Joi messages in the Laravel style: "The leads.0.phone field must be at least 7 characters." */
const messages: Joi.LanguageMessages = {
  'any.required': 'The {{#label}} field is required.',
  'any.only': 'The selected {{#label}} is invalid.',
  'any.invalid': 'The selected {{#label}} is invalid.',
  'any.unknown': 'The {{#label}} field is not allowed.',
  'string.base': 'The {{#label}} field must be a string.',
  'string.empty': 'The {{#label}} field is required.',
  'string.min': 'The {{#label}} field must be at least {{#limit}} characters.',
  'string.max': 'The {{#label}} field must not be greater than {{#limit}} characters.',
  'string.email': 'The {{#label}} field must be a valid email address.',
  'string.pattern.base': 'The {{#label}} field format is invalid.',
  'string.pattern.name': 'The {{#label}} field format is invalid.',
  'number.base': 'The {{#label}} field must be a number.',
  'number.min': 'The {{#label}} field must be at least {{#limit}}.',
  'number.max': 'The {{#label}} field must not be greater than {{#limit}}.',
  'number.integer': 'The {{#label}} field must be an integer.',
  'number.unsafe': 'The {{#label}} field must be a number.',
  'array.base': 'The {{#label}} field must be an array.',
  'array.min': 'The {{#label}} field must have at least {{#limit}} items.',
  'array.max': 'The {{#label}} field must not have more than {{#limit}} items.',
  'array.includesRequiredUnknowns': 'The {{#label}} field is required.',
  'array.sparse': 'The {{#label}} field must not contain empty items.',
  'object.base': 'The {{#label}} field must be an object.',
  'object.unknown': 'The {{#label}} field is not allowed.',
  'boolean.base': 'The {{#label}} field must be true or false.',
  'date.base': 'The {{#label}} field must be a valid date.',
  'date.format': 'The {{#label}} field must match the format Y-m-d\\TH:i:sP.',
  'date.range': `The {{#label}} field must be a valid ISO 8601 date between ${DATE_RANGE_TEXT}.`,
  'date.future': 'The {{#label}} field must be a date after now.',
};

export const JOI_OPTIONS: Joi.ValidationOptions = {
  abortEarly: false,
  stripUnknown: false,
  allowUnknown: false,
  convert: true,
  errors: { wrap: { label: false } },
  messages,
};

// NUL and the other C0 controls but tab, line feed and carriage return, and DEL. PostgreSQL refuses NUL in text and
// jsonb; the rest have no place in a name, an address or a note and break CSV exports and terminals.
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// A UTF-16 surrogate without its partner (JSON's "\ud800" escape makes one): jsonb refuses it (a 500 before this
// rule), and text columns silently store U+FFFD in its place. A pair (an emoji) is two code units and passes.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNFIT = new RegExp(`${CONTROL.source}|${LONE_SURROGATE.source}`);
const UNFIT_ALL = new RegExp(UNFIT.source, 'g');
/**
 * `s` with each character the text rule refuses (a control character, a lone surrogate) replaced by U+FFFD: for text
 * LeadFlow keeps from a party it cannot send a refusal to (a shop's webhook), so it is stored, not refused.
 */
export const fitText = (s: string): string => s.replace(UNFIT_ALL, '\uFFFD');
/** Whether `s` holds no character the text rule refuses (for a path segment, which the input guard does not read). */
export const isFitText = (s: string): boolean => !UNFIT.test(s);

/**
 * Names every plain object inherits (`constructor`, `toString`, `__proto__`, …) and `prototype`. As request keys they
 * read inherited members (`errors[key] ??= []` found a function: a 500) or write prototypes (`out.__proto__[0] = v`),
 * and no field of this product has such a name: they are refused wherever a request's keys are read.
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
export const isPrototypeName = (key: string): boolean => PROTOTYPE_NAMES.has(key);

/**
 * How deep any input may nest, the input itself at depth 0: a bulk lead body is 4 deep at its products, and no body,
 * query or field of this product needs more. Deeper input is refused by inputErrors (a 422 naming the field), so no
 * walk after it (a JSON.stringify, an idempotency hash, the intake log's copy) meets the thousands of levels that
 * overflow the stack (issue 40, finding 7).
 */
export const INPUT_DEPTH = 32;

/** The refusal of an object or array at INPUT_DEPTH, under its dotted path. */
const tooDeep = (key: string) => `The ${key} field must not nest more than ${INPUT_DEPTH} levels deep.`;

/** What is wrong with a string as text, in the words of a field error, or null when it is fit. */
function textProblem(s: string): string | null {
  if (!UNFIT.test(s)) return null;
  return CONTROL.test(s) ? 'must not contain control characters' : 'must be valid Unicode text';
}

/**
 * Errors for every string (value or object key) under `input` that holds a control character or a lone surrogate,
 * for every key named like a prototype member, and for every object or array nested deeper than INPUT_DEPTH, keyed by
 * dotted path under `prefix`. The one rule for text, keys and depth: it runs before Joi on every validated input
 * (validate, lead items), on every REST, dashboard and panel request body and query (http/input-guard.ts) and on the
 * public form's fields (src/sources/form-fields.ts), so no such string reaches the database, no such key an object,
 * and no unbounded recursion a request's value.
 */
export function inputErrors(input: unknown, prefix = ''): FieldErrors {
  const errors: FieldErrors = {};
  // Almost no input has one: a walk that builds no paths settles that first (a 1,000-lead body in ≈ 0.3 ms, not 4).
  if (!holdsUnfitInput(input, 0)) return errors;
  const walk = (v: unknown, path: string, depth: number) => {
    const key = path || 'body';
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) addError(errors, key, `The ${key} field ${problem}.`);
    } else if (v && typeof v === 'object' && depth >= INPUT_DEPTH) {
      addError(errors, key, tooDeep(key));
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        const problem = textProblem(k);
        if (problem) addError(errors, key, `The ${key} field ${problem}.`);
        else if (PROTOTYPE_NAMES.has(k)) addError(errors, at, `The ${at} field is not allowed.`);
        else walk(child, at, depth + 1);
      }
    }
  };
  walk(input, prefix, 0);
  return errors;
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * True when `v` is an ISO 8601 date or date-time (`2026-12-01`, `2026-12-01T14:30:00+01:00`) naming a real calendar
 * day and time within DATE_RANGE. `Date.parse` alone rolls 2026-02-31 over to March 3.
 */
export function isCalendarDate(v: string): boolean {
  const m = ISO_DATE_TIME.exec(v);
  if (!m) return false;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1, 7).map((x) => x ?? undefined);
  const year = Number(y);
  if (year < DATE_RANGE.minYear || year > DATE_RANGE.maxYear) return false;
  const day = new Date(Date.UTC(year, Number(mo) - 1, Number(d)));
  return (
    day.getUTCFullYear() === year &&
    day.getUTCMonth() === Number(mo) - 1 &&
    day.getUTCDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60 &&
    !Number.isNaN(Date.parse(v))
  );
}

/** A date filter or field: an ISO 8601 string naming a real date within DATE_RANGE, converted to a Date. */
export const isoDate = (opts: { future?: boolean } = {}) =>
  Joi.string().custom((v: string, h) => {
    if (!isCalendarDate(v)) return h.error('date.range');
    const d = new Date(v);
    return opts.future && d.getTime() <= Date.now() ? h.error('date.future') : d;
  });

/** The longest part of a refused value a message repeats: a huge value is cut and marked with an ellipsis. */
export const SHOWN_VALUE_MAX = 60;

/** A refused value as a message names it: quoted, cut at SHOWN_VALUE_MAX characters (issue 41). */
export function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `'${text.length > SHOWN_VALUE_MAX ? `${text.slice(0, SHOWN_VALUE_MAX)}…` : text}'`;
}

/**
 * A string that must be one of `values` (a status): refused naming the value and every allowed one, "The status 'xyz'
 * is not one of: new, confirmed, …." (issue 41). Still `valid()`, so the OpenAPI document shows the list as an enum.
 */
export const oneOf = (values: readonly string[]) =>
  Joi.string()
    .valid(...values)
    .error((reports) => {
      for (const r of reports)
        if (r.code === 'any.only')
          r.message = `The ${r.local.label} ${shownValue(r.value)} is not one of: ${values.join(', ')}.`;
      return reports;
    });

function holdsUnfitInput(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return UNFIT.test(v);
  if (!v || typeof v !== 'object') return false;
  if (depth >= INPUT_DEPTH) return true;
  if (Array.isArray(v)) {
    for (const item of v) if (holdsUnfitInput(item, depth + 1)) return true;
    return false;
  }
  for (const k in v) {
    if (PROTOTYPE_NAMES.has(k) || UNFIT.test(k) || holdsUnfitInput((v as Record<string, unknown>)[k], depth + 1))
      return true;
  }
  return false;
}

const prepared = new WeakMap<Joi.Schema, Map<string, Joi.Schema>>();

/**
 * `schema` with JOI_OPTIONS and `opts` as its own preferences, made once per schema and options. Options given to
 * `validate()` itself are merged and their message templates compiled on every call (≈ 8 % of a list request's CPU,
 * docs/performance.md); a schema's own preferences are merged once and cached by Joi.
 */
function withPreferences(schema: Joi.Schema, opts: Joi.ValidationOptions): Joi.Schema {
  let byOptions = prepared.get(schema);
  if (!byOptions) prepared.set(schema, (byOptions = new Map()));
  const key = JSON.stringify(opts);
  let ready = byOptions.get(key);
  if (!ready) byOptions.set(key, (ready = schema.prefs({ ...JOI_OPTIONS, ...opts })));
  return ready;
}

/** Validates against a Joi schema and throws ValidationError keyed by dotted paths; returns the converted value. */
export function validate<T>(schema: Joi.Schema, input: unknown, opts: Joi.ValidationOptions = {}): T {
  const unfit = inputErrors(input);
  if (Object.keys(unfit).length) throw new ValidationError(unfit);
  // a schema with preferences of its own (root .messages(), .prefs()) must keep them over JOI_OPTIONS: given per call
  const own = (schema as unknown as { _preferences?: object })._preferences;
  const { value, error } = own
    ? schema.validate(input, { ...JOI_OPTIONS, ...opts })
    : withPreferences(schema, opts).validate(input);
  if (error) throw new ValidationError(toFieldErrors(error));
  return value as T;
}

export function toFieldErrors(error: Joi.ValidationError): FieldErrors {
  const out: FieldErrors = {};
  for (const d of error.details) {
    const key = d.path.join('.') || 'body';
    const label = d.context?.label ? String(d.context.label) : null;
    const msg = label ? d.message.split(label).join(key) : d.message;
    addError(out, key, msg);
  }
  return out;
}

/**
 * Sets `target[key]` as an own property, whatever the key: a plain assignment of `__proto__` replaces the object's
 * prototype instead, and a read of `constructor` or `toString` finds Object.prototype's members.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Adds errors found by service rules (sku, references) to a dotted-path map, safe for any key (setOwn). */
export function addError(errors: FieldErrors, key: string, message: string): void {
  if (!Object.hasOwn(errors, key)) setOwn<string[]>(errors, key, []);
  if (!errors[key].includes(message)) errors[key].push(message);
}

/** Adds every error of `more` to `errors`, joining lists of one key (Object.assign makes `__proto__` a prototype). */
export function mergeErrors(errors: FieldErrors, more: FieldErrors): FieldErrors {
  for (const [key, messages] of Object.entries(more)) for (const m of messages) addError(errors, key, m);
  return errors;
}
