import crypto from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Each byte value's Crockford character (its low five bits), as a character code. */
const CODE_OF = Buffer.from(Array.from({ length: 256 }, (_, b) => CROCKFORD.charCodeAt(b & 31)));

/**
 * `n` distinct references: `LD`/`OR` + 10 upper-case Crockford base32 characters (50 random bits each), drawn from one
 * buffer of random bytes, mapped to characters in place (one string per reference: an import makes 100,000s).
 */
export function newReferences(prefix: 'LD' | 'OR', n: number): string[] {
  const set = new Set<string>();
  while (set.size < n) {
    const missing = n - set.size;
    const bytes = crypto.randomBytes(10 * missing);
    for (let i = 0; i < bytes.length; i++) bytes[i] = CODE_OF[bytes[i]];
    for (let k = 0; k < missing; k++) set.add(prefix + bytes.toString('latin1', 10 * k, 10 * k + 10));
  }
  return [...set];
}
