/**
 * LIKE patterns from typed text (a leaf of the kernel: accounts, catalogue, blocklist and the list searches use it, and
 * it imports nothing, so none of them reaches another domain through it).
 */

/** `term` with its LIKE wildcards escaped: a case-insensitive equality through ILIKE ("a_b" must not match "axb"). */
export function likeExact(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%term%` with LIKE wildcards in the term escaped. */
export function likeContains(s: string): string {
  return `%${likeExact(s)}%`;
}
