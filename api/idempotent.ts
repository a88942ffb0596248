import type { Request, Response } from 'express';
import { requestHash } from '../src/idempotency/idempotency-key.js';
import type { IdempotencyOption, Outcome, StoredAnswer } from '../src/idempotency/idempotency.service.js';

/** The header a replayed answer carries (Stripe's name); a first answer has none. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** A write with and without an Idempotency-Key: the service's two entry points for one route. */
export interface OnceOrPlain<R> {
  plain: () => Promise<R>;
  once: (option: IdempotencyOption<R>) => Promise<Outcome<R>>;
}

/**
 * Answers a create route: without an `Idempotency-Key` header as it always did; with one through the service's
 * idempotent path (docs/api.md "Idempotent requests"), which either writes and stores `answer(result)` with the key
 * or gives the first request's stored answer again, marked `Idempotent-Replayed: true`. `endpoint` scopes the key.
 */
export async function answerOnce<R>(
  req: Request,
  res: Response,
  endpoint: string,
  answer: (result: R) => StoredAnswer,
  write: OnceOrPlain<R>,
): Promise<void> {
  // headersDistinct: a key sent twice is refused (by the service, once the token is authorized), not read as "a, b"
  const keyValues = req.headersDistinct['idempotency-key'];
  let sent: StoredAnswer;
  if (keyValues === undefined) sent = answer(await write.plain());
  else {
    const outcome = await write.once({ keyValues, endpoint, requestHash: requestHash(req.body), answer });
    if (outcome.replayed) res.set(REPLAYED_HEADER, 'true');
    sent = outcome.replayed ?? answer(outcome.result);
  }
  res.status(sent.status).json(sent.body);
}
