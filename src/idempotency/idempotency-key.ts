import crypto from 'node:crypto';
import { ValidationError } from '../errors.js';

/** The header's name, also the field the refusals are filed under (docs/api.md "Idempotent requests"). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** How long a key answers its first answer again (Stripe's and the IETF draft's 24 hours). */
export const KEY_LIFETIME_HOURS = 24;

const MAX_KEY_LENGTH = 255;
// printable ASCII: what every client library can send and every log can show; NUL and control characters never get in
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

const refuse = (message: string) => ValidationError.single(IDEMPOTENCY_HEADER, message);

/**
 * The key of a request from the header's values as received (none: the request is not idempotent). The IETF draft
 * sends it as a structured-field string (`"abc"`), Stripe bare (`abc`): both are read, as the same key. A key is 1 to
 * 255 printable ASCII characters and is sent once; anything else is a 422 under `Idempotency-Key`.
 */
export function parseIdempotencyKey(values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw refuse('Send one Idempotency-Key header, not several.');
  const raw = values[0].trim();
  const key = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (key.length === 0) throw refuse('The Idempotency-Key must not be empty.');
  if (key.length > MAX_KEY_LENGTH)
    throw refuse(`The Idempotency-Key must not be longer than ${MAX_KEY_LENGTH} characters.`);
  if (!PRINTABLE_ASCII.test(key)) throw refuse('The Idempotency-Key may only contain printable ASCII characters.');
  return key;
}

/** JSON with every object's keys sorted: the same request, however its keys were ordered or spaced, reads the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 (hex) of the canonical request body: what "the same request" means for a key. */
export function requestHash(body: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(body)).digest('hex');
}
