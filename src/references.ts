import crypto from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `LD`/`OR` + 10 upper-case Crockford base32 characters: 50 random bits. */
export function newReference(prefix: 'LD' | 'OR'): string {
  const bytes = crypto.randomBytes(10);
  let out = prefix;
  for (let i = 0; i < 10; i++) out += CROCKFORD[bytes[i] & 31];
  return out;
}

export function newReferences(prefix: 'LD' | 'OR', n: number): string[] {
  const set = new Set<string>();
  while (set.size < n) set.add(newReference(prefix));
  return [...set];
}
