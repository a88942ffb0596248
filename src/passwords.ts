import crypto from 'node:crypto';
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

const dummies = new Map<HashCost, Promise<string>>();

/**
 * Spends what checking a password against a real hash of this cost spends, for an email that has no user: a dummy
 * hash made with the same parameters (once per process), so a refusal takes as long for an unknown email as for a
 * known one and emails cannot be told apart by timing.
 */
export async function verifyAgainstNothing(password: string, cost: HashCost = 'normal'): Promise<false> {
  if (!dummies.has(cost)) dummies.set(cost, hashPassword(crypto.randomBytes(16).toString('hex'), cost));
  await verifyPassword(await dummies.get(cost)!, password);
  return false;
}
