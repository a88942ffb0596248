import type { Sequelize, Transaction } from 'sequelize';
import { ConflictError, ValidationError } from '../errors.js';
import { deleteInBatches } from '../query.js';
import { IDEMPOTENCY_HEADER, parseIdempotencyKey } from './idempotency-key.js';
import { claimKey, completeKey, deleteExpiredKeys, findFreshKey, type KeyScope } from './idempotency.repository.js';

/** An answer as first given: status and JSON body. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/**
 * What an idempotent request brings down to its service: its key, the endpoint it is scoped to, the hash of its
 * canonical body, and how the entry point answers the write's result (that answer is what a retry gets again).
 */
export interface IdempotencyOption<R> {
  /** The `Idempotency-Key` header's values as received: read (and refused when unfit) after the actor is authorized. */
  keyValues: readonly string[];
  endpoint: string;
  requestHash: string;
  answer: (result: R) => StoredAnswer;
}

/** A write run with a key: its own result, or the first request's answer given again. */
export type Outcome<R> = { result: R; replayed?: undefined } | { replayed: StoredAnswer; result?: undefined };

/** Takes the key and stores the answer inside the write's transaction; `noKey` does nothing (a request without one). */
export interface KeyGuard<R> {
  take(transaction: Transaction): Promise<void>;
  keep(transaction: Transaction, result: R): Promise<void>;
}

export const noKey: KeyGuard<never> = { take: async () => {}, keep: async () => {} };

/** Thrown inside the write's transaction when another request committed the key first: rolls the write back. */
class KeyTakenMeanwhile extends Error {}

const mismatch = () =>
  ValidationError.single(
    IDEMPOTENCY_HEADER,
    'This Idempotency-Key was already used with a different request body; send a new key for a new request.',
  );

/** The stored answer of the key when its request was the same, a 422 when it was another, null when unused. */
async function storedAnswer(sequelize: Sequelize, scope: KeyScope, requestHash: string) {
  const row = await findFreshKey(sequelize, scope);
  if (!row) return null;
  if (row.request_hash !== requestHash) throw mismatch();
  return { status: row.status_code, body: row.response };
}

/**
 * Runs a write at most once per key (docs/api.md "Idempotent requests"). A key already completed answers its first
 * answer again (or a 422 for another body) before anything is validated, so a retry gets what the first request got
 * even if the catalogue changed since. Otherwise `write` runs with a guard that takes the key and stores the answer in
 * the write's own transaction: a failed or killed request leaves neither, and a request that waited on a concurrent
 * one with the same key replays that one's answer. Without an option the write runs as it always did.
 */
export async function runOnce<R>(
  sequelize: Sequelize,
  accountId: number,
  option: IdempotencyOption<R> | undefined,
  write: (guard: KeyGuard<R>) => Promise<R>,
): Promise<Outcome<R>> {
  const key = option && parseIdempotencyKey(option.keyValues);
  if (!option || key === undefined) return { result: await write(noKey) };
  const scope = { accountId, endpoint: option.endpoint, key };
  const first = await storedAnswer(sequelize, scope, option.requestHash);
  if (first) return { replayed: first };
  const guard: KeyGuard<R> = {
    take: async (transaction) => {
      const taken = await claimKey(sequelize, transaction, { ...scope, requestHash: option.requestHash });
      if (!taken) throw new KeyTakenMeanwhile();
    },
    keep: (transaction, result) => completeKey(sequelize, transaction, scope, option.answer(result)),
  };
  try {
    return { result: await write(guard) };
  } catch (err) {
    if (!(err instanceof KeyTakenMeanwhile)) throw err;
    const other = await storedAnswer(sequelize, scope, option.requestHash);
    if (other) return { replayed: other };
    // the other request's row is committed but unreadable as fresh: it expired in the instant between (24 h)
    throw new ConflictError('A request with this Idempotency-Key is in progress; retry it.');
  }
}

/** Removes keys older than their lifetime, batch by batch; answers how many went. */
export const removeExpiredKeys = (sequelize: Sequelize): Promise<number> =>
  deleteInBatches((size) => deleteExpiredKeys(sequelize, size));

export function createIdempotencyService(core: { db: { sequelize: Sequelize } }) {
  return {
    /** Keys older than 24 h removed (the cleanup-idempotency-keys job). */
    removeExpired: () => removeExpiredKeys(core.db.sequelize),
  };
}
