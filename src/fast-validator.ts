import type Joi from 'joi';

type Described = {
  type?: string;
  flags?: Record<string, unknown>;
  rules?: { name: string; args?: Record<string, unknown> }[];
  keys?: Record<string, Described>;
  items?: Described[];
};
/** What a compiled fast path returns for input it cannot vouch for. */
const ASK_JOI = undefined;
type Accept = (v: unknown) => unknown;

/**
 * A fast path for validating against a Joi schema with JOI_OPTIONS, for hot loops (import rows, bulk REST bodies).
 * Compiled from `schema.describe()`, it returns the converted value of input it can tell is valid and undefined for
 * anything else — invalid input, or input it is not sure about (a numeric string, -0, a price to round, an extra key) —
 * which then goes to Joi itself, for the value or the errors. Joi stays the one rule: the fast path understands only
 * objects with known keys, arrays with one item schema, strings (trim, min, max) and numbers (integer, min, max,
 * precision), each optional or required; any other schema compiles to "always ask Joi". A property test checks that
 * whatever the fast path accepts, Joi accepts with the same value.
 */
export function fastValidator(schema: Joi.Schema): (input: unknown) => unknown {
  return compile(schema.describe() as Described) ?? (() => ASK_JOI);
}

type Limits = { min: number; max: number; precision?: number; trim: boolean; integer: boolean };

/** The rules of a string, number or array schema the fast path understands, or null (ask Joi). */
function limitsOf(type: string | undefined, rules: NonNullable<Described['rules']>): Limits | null {
  const known: Record<string, string[]> = {
    string: ['trim', 'min', 'max'],
    number: ['integer', 'min', 'max', 'precision'],
    array: ['min', 'max'],
    object: [],
  };
  const limits: Limits = { min: -Infinity, max: Infinity, trim: false, integer: false };
  for (const r of rules) {
    if (!known[type ?? '']?.includes(r.name)) return null;
    const args = r.args ?? {};
    if (r.name === 'trim') limits.trim = args.enabled === true;
    else if (r.name === 'integer') limits.integer = true;
    else if (Object.keys(args).length !== 1 || typeof args.limit !== 'number') return null;
    else limits[r.name as 'min' | 'max' | 'precision'] = args.limit;
  }
  return limits;
}

function stringAccept({ min, max, trim }: Limits): Accept {
  return (v) => {
    if (typeof v !== 'string') return ASK_JOI;
    const s = trim ? v.trim() : v;
    return s.length === 0 || s.length < min || s.length > max ? ASK_JOI : s;
  };
}

function numberAccept({ min, max, precision, integer }: Limits): Accept {
  const scale = precision === undefined ? 0 : 10 ** precision;
  return (v) =>
    typeof v !== 'number' ||
    !Number.isFinite(v) ||
    Object.is(v, -0) ||
    Math.abs(v) > Number.MAX_SAFE_INTEGER ||
    (integer && !Number.isInteger(v)) ||
    (scale && Math.round(v * scale) / scale !== v) ||
    v < min ||
    v > max
      ? ASK_JOI
      : v;
}

function arrayAccept({ min, max }: Limits, items: Described[] | undefined): Accept | null {
  const item = items?.length === 1 && !items[0].flags?.presence ? compile(items[0]) : null;
  if (!item) return null;
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return ASK_JOI;
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      if (!(i in v) || (out[i] = item(v[i])) === ASK_JOI) return ASK_JOI;
    }
    return out;
  };
}

function objectAccept(keys: Record<string, Described>): Accept | null {
  const fields: { key: string; required: boolean; accept: Accept }[] = [];
  for (const [key, child] of Object.entries(keys)) {
    const presence = child.flags?.presence;
    const accept =
      presence === undefined || presence === 'required' || presence === 'optional'
        ? compile({ ...child, flags: { ...child.flags, presence: undefined } })
        : null;
    if (!accept) return null;
    fields.push({ key, required: presence === 'required', accept });
  }
  const names = new Set(fields.map((f) => f.key));
  return (v) => {
    if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return ASK_JOI;
    for (const k in v) if (!names.has(k)) return ASK_JOI;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      if (!Object.hasOwn(v, f.key)) {
        if (f.required) return ASK_JOI;
        continue;
      }
      const value = f.accept((v as Record<string, unknown>)[f.key]);
      if (value === ASK_JOI) return ASK_JOI;
      out[f.key] = value;
    }
    return out;
  };
}

function compile(d: Described): Accept | null {
  const { type, flags = {}, rules = [], keys, items, ...other } = d;
  if (Object.keys(other).length || Object.keys(flags).some((f) => f !== 'presence')) return null;
  const limits = limitsOf(type, rules);
  if (!limits) return null;
  if (type === 'string') return stringAccept(limits);
  if (type === 'number') return numberAccept(limits);
  if (type === 'array') return arrayAccept(limits, items);
  if (type !== 'object' || !keys) return null;
  return objectAccept(keys);
}
