import type { Request, RequestHandler, Response } from 'express';
import crypto from 'node:crypto';
import { doubleCsrf } from 'csrf-csrf';
import type { AppContext } from '../src/app-context.js';
import { ForbiddenError, UnauthenticatedError } from '../src/errors.js';
import { sendErrorPage } from '../http/errors.js';

/** JSON clients (Accept JSON, XHR or a JSON body) get JSON answers; browsers get pages and redirects. */
export function wantsJson(req: Request): boolean {
  if (req.xhr || req.is('application/json')) return true;
  return req.accepts(['html', 'json']) === 'json';
}

/** Every dashboard route behind the session: 401 JSON for JSON clients, a redirect to the login page for browsers. */
export const requireUser: RequestHandler = (req, res, next) => {
  if (req.user && req.actor) return next();
  if (wantsJson(req)) return next(new UnauthenticatedError());
  res.redirect(302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
};

/**
 * Double-submit CSRF (csrf-csrf) bound to the session id once signed in, and before that to a random anonymous
 * identifier in its own cookie, so that showing the login form stores no session row. JSON clients read the token from
 * GET /csrf-token and send it in X-CSRF-Token; HTML forms carry it in a hidden `_csrf` field.
 */
export function createCsrf(ctx: AppContext) {
  const anonCookie = ctx.config.trustProxy ? '__Host-leadflow.anon' : 'leadflow.anon';
  const cookieOptions = { sameSite: 'lax' as const, path: '/', secure: ctx.config.trustProxy, httpOnly: true };
  const anonId = (req: Request): string =>
    (req as Request & { anonId?: string }).anonId ?? (req.cookies?.[anonCookie] as string | undefined) ?? '';
  const csrf = doubleCsrf({
    getSecret: () => ctx.config.sessionSecret,
    getSessionIdentifier: (req) => (req.user ? req.session.id : anonId(req)),
    cookieName: ctx.config.trustProxy ? '__Host-leadflow.x-csrf' : 'leadflow.x-csrf',
    cookieOptions,
    getCsrfTokenFromRequest: (req) =>
      (req.headers['x-csrf-token'] as string | undefined) ?? (req.body as { _csrf?: string } | undefined)?._csrf,
  });
  /**
   * Issues a token; an anonymous visitor gets the identifier cookie it is bound to (a session only comes with login).
   */
  const token = (req: Request, res: Response): string => {
    if (!req.user && !anonId(req)) {
      const id = crypto.randomBytes(24).toString('base64url');
      res.cookie(anonCookie, id, cookieOptions);
      (req as Request & { anonId?: string }).anonId = id;
    }
    return csrf.generateCsrfToken(req, res, { overwrite: false, validateOnReuse: false });
  };
  const protect: RequestHandler = (req, res, next) => {
    csrf.doubleCsrfProtection(req, res, (err?: unknown) => {
      if (!err) return next();
      const mismatch = new ForbiddenError('CSRF token mismatch.');
      if (wantsJson(req)) return next(mismatch);
      const page =
        '<!doctype html><title>Expired form</title>' +
        '<p>This form has expired. <a href="/login">Go back</a> and try again.</p>';
      sendErrorPage(res, mismatch, page);
    });
  };
  return { token, protect };
}
