import crypto from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * `n` distinct references: `LD`/`OR` + 10 upper-case Crockford base32 characters (50 random bits each), drawn from one
 * buffer of random bytes.
 */
export function newReferences(prefix: 'LD' | 'OR', n: number): string[] {
  const set = new Set<string>();
  while (set.size < n) {
    const missing = n - set.size;
    const bytes = crypto.randomBytes(10 * missing);
    for (let k = 0; k < missing; k++) {
      let out = prefix;
      for (let i = 0; i < 10; i++) out += CROCKFORD[bytes[10 * k + i] & 31];
      set.add(out);
    }
  }
  return [...set];
}
