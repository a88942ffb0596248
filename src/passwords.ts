import argon2 from 'argon2';

export type HashCost = 'normal' | 'fast';

/** argon2id; `fast` (tests only) lowers the memory cost so suites stay quick. */
export function hashPassword(password: string, cost: HashCost = 'normal'): Promise<string> {
  return argon2.hash(password, cost === 'fast'
    ? { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 }
    : { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
