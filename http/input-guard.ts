import type { Request, RequestHandler } from 'express';
import { ValidationError, type FieldErrors } from '../src/errors.js';
import { addError, inputErrors, isPrototypeName, mergeErrors } from '../src/validation.js';

/** The segments a query key names once parsed: `a[b][c]`, `a.b.c` (the panel's flat keys) and `a` alike. */
const SEGMENTS = /[[\].]+/;

function decoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

/**
 * Errors for query keys that name a prototype member at any depth (`constructor`, `a[__proto__][x]`,
 * `filters.constructor.prototype.y`), read from the address itself: the query parser (qs) drops most of them
 * silently and flat's unflatten others, so only the raw keys show that the request asked for one.
 */
export function queryKeyErrors(url: string): FieldErrors {
  const query = url.split('?').slice(1).join('?');
  return query ? keySegmentErrors(query.split('&').map((pair) => decoded(pair.split('=')[0]))) : {};
}

/** Errors for keys with a segment named like a prototype member (`a[b]`, `a.b`: the panel's flat keys). */
function keySegmentErrors(keys: string[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const key of keys) {
    const segments = key.split(SEGMENTS).filter(Boolean);
    const at = segments.findIndex(isPrototypeName);
    if (at < 0) continue;
    const field = segments.slice(0, at + 1).join('.');
    addError(errors, field, `The ${field} field is not allowed.`);
  }
  return errors;
}

/**
 * The parsed body: the panel's parsers leave it in `fields` (admin/panel-guards.ts, panel-bodies.ts hand it there),
 * as flat keys (`record.__proto__.x`) that AdminJS unflattens later: their segments are checked too.
 */
function bodyErrors(req: Request): FieldErrors {
  const body: unknown = (req as { fields?: unknown }).fields ?? req.body;
  if (body === undefined) return {};
  const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  return mergeErrors(keySegmentErrors(keys), inputErrors(body));
}

function guard(errorsOf: (req: Request) => FieldErrors): RequestHandler {
  return (req, _res, next) => {
    const errors = errorsOf(req);
    next(Object.keys(errors).length ? new ValidationError(errors) : undefined);
  };
}

/**
 * The input rule of src/validation.ts (no control character or lone surrogate in any string, no prototype-named key)
 * applied to a whole REST or dashboard request before any route reads it: a 422 naming the fields, so a route that
 * ignores part of its body or query (a delete, a rotate) still acts on no request that carries such input. The
 * services apply the same rule to what reaches them by other doors (the panel's payloads, imports, jobs).
 */
export const refuseUnfitInput = guard((req) =>
  mergeErrors(mergeErrors(queryKeyErrors(req.originalUrl), inputErrors(req.query)), bodyErrors(req)),
);

/**
 * The same rule but for query values, for the panel and the sign-in routes: a panel filter that does not parse (a NUL)
 * matches nothing there (admin/resources/scoped-resource.ts), and a sign-in's `next` is made safe, not refused. Query
 * keys are still checked raw, before flat's unflatten, which drops some prototype segments and keeps others
 * (`filters.constructor`).
 */
export const refuseUnfitBody = guard((req) => mergeErrors(queryKeyErrors(req.originalUrl), bodyErrors(req)));
