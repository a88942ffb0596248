import type { Request, RequestHandler } from 'express';
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

interface MinuteBudget {
  limit: number;
  redisUrl: string | null;
  refused?: () => void;
}

/** Seconds until the window of the limiter that refused `req` (stored under `property`) starts afresh. */
function secondsToReset(req: Request, property: string): number {
  const info = (req as unknown as Record<string, { resetTime?: Date } | undefined>)[property];
  const ms = info?.resetTime ? info.resetTime.getTime() - Date.now() : 60_000;
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * A one-minute budget whose refusal is the JSON 429 of the error table. With `specHeaders` the limiter sends the
 * spec's X-RateLimit-* headers and Retry-After itself; otherwise the refusal carries the Retry-After computed here.
 * Counters live in Redis under `prefix` when `redisUrl` is set.
 */
function minuteLimiter(
  opts: MinuteBudget & {
    prefix: string;
    key: (req: Request) => string;
    specHeaders?: boolean;
    property?: string;
    skip?: (req: Request) => boolean;
    /** Answers of 400 and above give their request back (a refused submission spends no one's budget). */
    skipFailedRequests?: boolean;
    /** Answers under 400 give their request back (only failures, such as a bad signature, are budgeted). */
    skipSuccessfulRequests?: boolean;
    /** The refusal's message (default: the spec's "Too Many Attempts."). */
    message?: string;
  },
): RequestHandler {
  const property = opts.property ?? 'rateLimit';
  return rateLimit({
    windowMs: 60_000,
    limit: opts.limit,
    legacyHeaders: opts.specHeaders ?? false,
    standardHeaders: false,
    requestPropertyName: property,
    ...(opts.skip ? { skip: opts.skip } : {}),
    skipFailedRequests: opts.skipFailedRequests ?? false,
    skipSuccessfulRequests: opts.skipSuccessfulRequests ?? false,
    keyGenerator: opts.key,
    handler: (req, _res, next) => {
      opts.refused?.();
      next(new RateLimitedError(opts.message, opts.specHeaders ? undefined : secondsToReset(req, property)));
    },
    ...(opts.redisUrl ? { store: redisStore(opts.redisUrl, opts.prefix) } : {}),
  });
}

/**
 * The spec's REST limit: N requests per minute per token, or per client IP for requests without a valid token.
 * X-RateLimit-Limit / X-RateLimit-Remaining on every answer, Retry-After on 429. Counters live in Redis when
 * REDIS_URL is set, so every web process draws on one budget.
 */
export function restRateLimit(opts: MinuteBudget & { prefix?: string }): RequestHandler {
  return minuteLimiter({
    ...opts,
    prefix: opts.prefix ?? 'rl:rest:',
    specHeaders: true,
    key: (req) =>
      req.actor && req.actor.kind === 'token' ? `token:${req.actor.tokenId}` : `ip:${ipKeyGenerator(req.ip ?? '')}`,
  });
}

/**
 * A budget shared by all the tokens of one account, after the per-token limit: minting tokens buys no more requests.
 * Requests without a token are the per-IP limiter's. The X-RateLimit-* headers stay the token's (the spec's figure);
 * a refusal by this budget carries Retry-After.
 */
export function accountRateLimit(opts: MinuteBudget): RequestHandler {
  return minuteLimiter({
    ...opts,
    prefix: 'rl:rest-account:',
    property: 'accountRateLimit',
    skip: (req) => !req.actor || req.actor.kind !== 'token',
    key: (req) => `account:${req.actor!.accountId}`,
  });
}

/**
 * The session routes' budget: per signed-in user, per client IP before login. The panel makes several requests per
 * page, so the figure is a human's ceiling, not a script's. A refusal is the JSON 429 with Retry-After.
 */
export function sessionRateLimit(opts: MinuteBudget): RequestHandler {
  return minuteLimiter({
    ...opts,
    prefix: 'rl:session:',
    property: 'sessionRateLimit',
    key: (req) => (req.user ? `user:${req.user.id}` : `ip:${ipKeyGenerator(req.ip ?? '')}`),
  });
}

/**
 * A form source's budgets (docs/lead-sources.md, "Limits"): per client IP and per source, both counted per source
 * (read from `sourceOf`), so a visitor of one seller's page never spends another seller's budget and a flood at one
 * form never closes the others. A refusal is a RateLimitedError with Retry-After and a message a visitor can read.
 */
export function formRateLimits(opts: {
  perIp: number;
  perSource: number;
  redisUrl: string | null;
  sourceOf: (req: Request) => number;
  refused?: () => void;
}): RequestHandler[] {
  return [
    minuteLimiter({
      limit: opts.perIp,
      redisUrl: opts.redisUrl,
      refused: opts.refused,
      prefix: 'rl:form-ip:',
      property: 'formIpRateLimit',
      message: 'Too many submissions from your address. Please wait a minute and send the form again.',
      key: (req) => `${opts.sourceOf(req)}:${ipKeyGenerator(req.ip ?? '')}`,
    }),
    minuteLimiter({
      limit: opts.perSource,
      redisUrl: opts.redisUrl,
      refused: opts.refused,
      prefix: 'rl:form-source:',
      property: 'formSourceRateLimit',
      message: 'This form receives too many submissions right now. Please try again in a minute.',
      key: (req) => String(opts.sourceOf(req)),
      // what the form refused (junk, bots, a 429 of the address budget) gives its room back: a flood of junk from
      // many addresses cannot close the form to real visitors (issue 40, finding 5)
      skipFailedRequests: true,
    }),
  ];
}

/**
 * A shop address's budget for deliveries it refuses (a bad signature, a body too large): per client IP and per address,
 * both only counting refused deliveries, so a shop's real orders are never budgeted and a flood of unsigned posts is
 * answered 429 before it is read or logged (issue 40, finding 2).
 */
export function storeRateLimits(opts: {
  perIp: number;
  perSource: number;
  redisUrl: string | null;
  refused?: () => void;
}): RequestHandler[] {
  const address = (req: Request) => String(req.params.public_key).slice(0, 64);
  const common = { redisUrl: opts.redisUrl, refused: opts.refused, skipSuccessfulRequests: true };
  return [
    minuteLimiter({
      ...common,
      limit: opts.perIp,
      prefix: 'rl:store-ip:',
      property: 'storeIpRateLimit',
      key: (req) => `${address(req)}:${ipKeyGenerator(req.ip ?? '')}`,
    }),
    minuteLimiter({
      ...common,
      limit: opts.perSource,
      prefix: 'rl:store-source:',
      property: 'storeSourceRateLimit',
      key: address,
    }),
  ];
}
