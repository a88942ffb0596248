import crypto from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

export type HashCost = 'normal' | 'fast';

/**
 * argon2id with the parameters every new hash gets: `normal` keeps those of the `argon2` package used before
 * (64 MiB, 3 passes, 4 lanes), so hashes made then and now cost the same to check; `fast` (tests only) lowers them so
 * suites stay quick. @node-rs/argon2 ships a prebuilt binary per platform: nothing is compiled at install.
 */
const PARAMS = {
  normal: { memoryCost: 65536, timeCost: 3, parallelism: 4 },
  fast: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
} as const;

export function hashPassword(password: string, cost: HashCost = 'normal'): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id, ...PARAMS[cost] });
}

/** Any argon2 PHC string verifies, whatever made it (parameters are read from the string). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/**
 * True when a stored hash is weaker than a new one would be (another algorithm, or less memory or fewer passes): the
 * caller, holding the password a successful login just proved, stores a new hash (docs/operations.md, "Passwords").
 * A stronger hash is kept: a lower cost setting (PASSWORD_HASH_COST=fast, meant for tests) never weakens stored ones.
 */
export function needsRehash(stored: string, cost: HashCost = 'normal'): boolean {
  const m = /^\$argon2id\$v=19\$([^$]+)\$/.exec(stored);
  if (!m) return true;
  const params = Object.fromEntries(m[1].split(',').map((kv) => kv.split('=')));
  const want = PARAMS[cost];
  return Number(params.m) < want.memoryCost || Number(params.t) < want.timeCost;
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
