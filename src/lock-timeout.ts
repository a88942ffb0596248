import type { Sequelize, Transaction } from 'sequelize';
import { ConflictError } from './errors.js';

/** PostgreSQL's lock_not_available: a lock was not granted within lock_timeout (or NOWAIT). */
const LOCK_NOT_AVAILABLE = '55P03';

function isLockTimeout(err: unknown): boolean {
  const e = err as { parent?: { code?: string }; code?: string } | null;
  return (e?.parent?.code ?? e?.code) === LOCK_NOT_AVAILABLE;
}

/**
 * Runs `fn` in `transaction` with its lock waits bounded by `ms`: a request never holds a pool connection for long
 * while it waits for a row another request holds. A wait past `ms` is a 409 with `message` (the transaction rolls
 * back, nothing is written); the bound ends with `fn`, and what follows in the transaction waits as usual.
 */
export async function withLockTimeout<T>(
  sequelize: Sequelize,
  transaction: Transaction,
  ms: number,
  message: string,
  fn: () => Promise<T>,
): Promise<T> {
  await sequelize.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(ms))}`, { transaction });
  try {
    const result = await fn();
    await sequelize.query('SET LOCAL lock_timeout = DEFAULT', { transaction });
    return result;
  } catch (err) {
    if (isLockTimeout(err)) throw new ConflictError(message);
    throw err;
  }
}
