import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import { RateLimitedError } from '../src/errors.js';

const clients = new Map<string, Promise<Redis>>();

/** One Redis connection per URL and process. ioredis takes ≈ 65 ms to load: without REDIS_URL it never is. */
function redisClient(url: string): Promise<Redis> {
  let client = clients.get(url);
  if (!client) {
    client = import('ioredis').then(
      ({ Redis }) => new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true }),
    );
    clients.set(url, client);
  }
  return client;
}

/** A store on the process's Redis connection for `url`; limiters share it, each with its own store and prefix. */
export function redisStore(url: string, prefix: string): Store {
  const client = redisClient(url);
  return new RedisStore({
    prefix,
    sendCommand: async (command: string, ...args: string[]) => (await client).call(command, ...args) as never,
  });
}

export async function closeRedisClients(): Promise<void> {
  await Promise.all([...clients.values()].map(async (client) => (await client).quit().catch(() => {})));
  clients.clear();
}

/**
 * The spec's REST limit: N requests per minute per token, or per client IP for requests without a valid token.
 * X-RateLimit-Limit / X-RateLimit-Remaining on every answer, Retry-After on 429. Counters live in Redis when
 * REDIS_URL is set, so every web process draws on one budget.
 */
export function restRateLimit(opts: {
  limit: number;
  redisUrl: string | null;
  prefix?: string;
  refused?: () => void;
}): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: opts.limit,
    legacyHeaders: true,
    standardHeaders: false,
    keyGenerator: (req) =>
      req.actor && req.actor.kind === 'token' ? `token:${req.actor.tokenId}` : `ip:${ipKeyGenerator(req.ip ?? '')}`,
    // the limiter has set Retry-After and the X-RateLimit-* headers already
    handler: (_req, _res, next) => {
      opts.refused?.();
      next(new RateLimitedError());
    },
    ...(opts.redisUrl ? { store: redisStore(opts.redisUrl, opts.prefix ?? 'rl:rest:') } : {}),
  });
}
