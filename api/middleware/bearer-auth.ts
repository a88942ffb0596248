import type { RequestHandler } from 'express';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import type { Actor } from '../../src/actor.js';
import { UnauthenticatedError } from '../../src/errors.js';
import type { TokenService } from '../../src/tokens/token.service.js';

/**
 * Resolves `Authorization: Bearer <id|secret>` to req.actor without rejecting, so the rate limiter can key on the
 * token (or the IP); `requireToken` then answers 401. It runs before the body is read (so a stranger's body never is);
 * passport-http-bearer also reads `?access_token=`: removed first, so a token is only ever taken from the header and
 * never from URLs or access logs (a body's `access_token` is dropped once parsed, by `dropBodyToken`).
 */
export function resolveBearer(tokens: TokenService): RequestHandler {
  tokens.watch();
  const auth = new passport.Passport();
  auth.use(
    'bearer',
    new BearerStrategy((token, done) => {
      tokens.authenticate(token).then((actor) => done(null, actor ?? false), done);
    }),
  );
  return (req, res, next) => {
    if (req.query && 'access_token' in req.query) delete (req.query as Record<string, unknown>).access_token;
    if (!/^Bearer\s+\S/i.test(req.headers.authorization ?? '')) return next();
    auth.authenticate('bearer', { session: false }, (err: unknown, actor: Actor | false) => {
      if (err) return next(err);
      if (actor) req.actor = actor;
      next();
    })(req, res, next);
  };
}

export const requireToken: RequestHandler = (req, _res, next) => {
  next(req.actor ? undefined : new UnauthenticatedError());
};

/** A token sent in the body is not a credential here: removed once the body is parsed, so no handler stores it. */
export const dropBodyToken: RequestHandler = (req, _res, next) => {
  if (req.body && typeof req.body === 'object' && 'access_token' in req.body) delete req.body.access_token;
  next();
};
