import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type passport from 'passport';
import type { AppContext } from '../../src/app-context.js';
import { GoneError, RateLimitedError, UnauthenticatedError, ValidationError } from '../../src/errors.js';
import { sendErrorPage } from '../../http/errors.js';
import { route } from '../../http/async.js';
import { redisStore } from '../../http/rate-limit.js';
import { wantsJson, type createCsrf } from '../auth.js';
import { forgotPage, loginPage, logoutPage, resetPage } from '../views/pages.js';
import { loginCredentials, SESSION_COOKIE, type SessionUser } from '../session.js';
import { requestLanguage, translate } from '../locale-text.js';

/**
 * Where to go after login: a path on this site only. `next` is read as the browser will read the redirect: resolved
 * against this site (dot segments removed, so `/.//host` becomes `//host`), and kept only when it lands on this site
 * and its path, read again, still does (a path starting `//` or `/\` is another site to a browser). A backslash or a
 * control character anywhere sends the user to /admin instead.
 */
export function safeNext(next: unknown): string {
  const fallback = '/admin';
  // eslint-disable-next-line no-control-regex -- a control character in `next` is what is refused
  if (typeof next !== 'string' || !/^\/(?![/\\])/.test(next) || /[\\\u0000-\u001f\u007f]/.test(next)) return fallback;
  const base = 'http://leadflow.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!/^\/(?![/\\])/.test(path) || new URL(path, base).href !== url.href) return fallback;
  return path;
}

type Csrf = ReturnType<typeof createCsrf>;

/** 5 failed logins per email + IP per minute; successful logins do not count. */
function loginThrottle(ctx: AppContext, csrf: Csrf) {
  return rateLimit({
    windowMs: 60_000,
    limit: ctx.config.loginThrottlePerMinute,
    skipSuccessfulRequests: true,
    legacyHeaders: false,
    standardHeaders: false,
    keyGenerator: (req) => `${loginCredentials(req)?.email ?? ''}|${ipKeyGenerator(req.ip ?? '')}`,
    handler: (req, res, next, options) => {
      ctx.metrics.rateLimited.inc({ limiter: 'login' });
      const retry = Math.ceil(options.windowMs / 1000);
      const refusal = new RateLimitedError(`Too many login attempts. Please try again in ${retry} seconds.`, retry);
      if (wantsJson(req)) return next(refusal);
      const email = String(req.body?.email ?? '');
      const lang = requestLanguage(req);
      const error = translate(lang, 'site.login.tooMany', { seconds: retry });
      sendErrorPage(res, refusal, loginPage({ csrf: csrf.token(req, res), error, email, lang }));
    },
    ...(ctx.config.redisUrl ? { store: redisStore(ctx.config.redisUrl, 'rl:login:') } : {}),
  });
}

/** Login, logout and the CSRF token. */
function addLoginRoutes(r: Router, ctx: AppContext, auth: passport.PassportStatic, csrf: Csrf) {
  r.get('/csrf-token', (req, res) => {
    res.json({ token: csrf.token(req, res) });
  });

  r.get('/login', (req, res) => {
    if (req.user) return res.redirect(safeNext(req.query.next));
    const next = String(req.query.next ?? '');
    res.type('html').send(loginPage({ csrf: csrf.token(req, res), next, lang: requestLanguage(req) }));
  });

  r.post('/login', csrf.protect, loginIpThrottle(ctx, csrf), loginThrottle(ctx, csrf), (req, res, next) => {
    auth.authenticate('local', (err: unknown, user: SessionUser | false) => {
      if (err) return next(err);
      if (!user) return refuseLogin(req, res, next, csrf);
      // req.login regenerates the session id (passport ≥ 0.6), so a pre-login id is never reused; it saves the session
      req.login(user, (loginErr) => {
        if (loginErr) return next(loginErr);
        // a password change that ended the user's sessions while this login checked the old one undoes it
        ctx.services.credentials.current(user).then((current) => {
          if (!current)
            return req.logout(() => req.session.destroy(() => refuseLogin(req, res, next, csrf, SESSION_COOKIE)));
          req.session.loginAt = Date.now();
          if (!wantsJson(req)) return res.redirect(303, safeNext(req.body?.next));
          res.json({
            message: 'Logged in.',
            user: { id: user.id, name: user.name, email: user.email, role: user.role, account_id: user.account_id },
            csrf_token: csrf.token(req, res),
          });
        }, next);
      });
    })(req, res, next);
  });

  r.post('/logout', csrf.protect, (req, res, next) => {
    if (!req.user) {
      if (wantsJson(req)) return next(new UnauthenticatedError());
      return res.redirect(303, '/login');
    }
    endSession(req, res, next);
  });

  // The panel's Log out button navigates here (AdminJS's logoutPath). A click on a page of this site ends the session
  // at once; any other GET (a link or redirect from another site, which SameSite=Lax lets carry the cookie) only gets
  // a page whose button POSTs /logout with the CSRF token, so another site cannot sign a user out.
  r.get('/logout', (req, res, next) => {
    if (!req.user) return res.redirect(303, '/login');
    if (fromThisSite(req)) return endSession(req, res, next);
    res.type('html').send(logoutPage({ csrf: csrf.token(req, res), lang: requestLanguage(req) }));
  });
}

/** Ends the signed-in session as POST /logout does: the store row deleted, the cookie cleared, then the login page. */
/** 401 "These credentials do not match our records.": JSON, or the login form again with the email typed. */
function refuseLogin(req: Request, res: Response, next: NextFunction, csrf: Csrf, clearCookie?: string): void {
  if (clearCookie) res.clearCookie(clearCookie);
  const refusal = new UnauthenticatedError('These credentials do not match our records.');
  if (wantsJson(req)) return next(refusal);
  const lang = requestLanguage(req);
  const form = {
    lang,
    csrf: csrf.token(req, res),
    error: translate(lang, 'site.login.badCredentials'),
    email: typeof req.body?.email === 'string' ? req.body.email : '',
    next: typeof req.body?.next === 'string' ? req.body.next : '',
  };
  sendErrorPage(res, refusal, loginPage(form));
}

function endSession(req: Request, res: Response, next: NextFunction): void {
  req.logout((err) => {
    if (err) return next(err);
    req.session.destroy((destroyErr) => {
      if (destroyErr) return next(destroyErr);
      res.clearCookie(SESSION_COOKIE);
      if (wantsJson(req)) return res.json({ message: 'Logged out.' });
      res.redirect(303, '/login');
    });
  });
}

/** A navigation started by a page of this origin: Sec-Fetch-Site says so, or (older browsers) the Referer's host. */
function fromThisSite(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site) return site === 'same-origin';
  try {
    return new URL(req.get('referer') ?? '').host === req.get('host');
  } catch {
    return false;
  }
}

/**
 * A budget per client IP for the anonymous forms (by default RESET_REQUESTS_PER_IP per 15 minutes, for those that
 * mail or set a password; in Redis with REDIS_URL): 429, as JSON or on the form's own page with the refusal in words.
 */
export function perIpThrottle(
  ctx: AppContext,
  opts: {
    limiter: string;
    message: string;
    page: (req: Request, res: Response, error: string) => string;
    /** Default: RESET_REQUESTS_PER_IP per 15 minutes, every request counted. */
    limit?: number;
    windowMs?: number;
    failuresOnly?: boolean;
  },
) {
  return rateLimit({
    windowMs: opts.windowMs ?? 15 * 60_000,
    limit: opts.limit ?? ctx.config.resetRequestsPerIp,
    skipSuccessfulRequests: opts.failuresOnly ?? false,
    legacyHeaders: false,
    standardHeaders: false,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? ''),
    handler: (req, res, next, options) => {
      ctx.metrics.rateLimited.inc({ limiter: opts.limiter });
      const refusal = new RateLimitedError(opts.message, Math.ceil(options.windowMs / 1000));
      if (wantsJson(req)) return next(refusal);
      sendErrorPage(res, refusal, opts.page(req, res, refusal.message));
    },
    ...(ctx.config.redisUrl ? { store: redisStore(ctx.config.redisUrl, `rl:${opts.limiter}:`) } : {}),
  });
}

/**
 * Failed logins per client IP, whatever the emails (LOGIN_FAILURES_PER_IP per minute): each try costs an argon2 check,
 * so one client trying many emails must not take the machine's hashing from everyone else.
 */
const loginIpThrottle = (ctx: AppContext, csrf: Csrf) =>
  perIpThrottle(ctx, {
    limiter: 'login-ip',
    message: 'Too many login attempts from this address. Please try again in 60 seconds.',
    page: (req, res) => {
      const lang = requestLanguage(req);
      return loginPage({ csrf: csrf.token(req, res), error: translate(lang, 'site.login.tooManyFromIp'), lang });
    },
    limit: ctx.config.loginFailuresPerIp,
    windowMs: 60_000,
    failuresOnly: true,
  });

/** Reset requests per client IP; one mail per email is the job's rule. */
const resetThrottle = (ctx: AppContext, csrf: Csrf) =>
  perIpThrottle(ctx, {
    limiter: 'password-reset',
    message: 'Too many reset requests. Please try again later.',
    page: (req, res) => {
      const lang = requestLanguage(req);
      return forgotPage({ csrf: csrf.token(req, res), error: translate(lang, 'site.forgot.tooMany'), lang });
    },
  });

/** The password reset pages and forms. */
function addResetRoutes(r: Router, ctx: AppContext, csrf: Csrf) {
  r.get('/reset-password', (req, res) => {
    res.type('html').send(forgotPage({ csrf: csrf.token(req, res), lang: requestLanguage(req) }));
  });

  r.post(
    '/reset-password',
    csrf.protect,
    resetThrottle(ctx, csrf),
    route(async (req, res) => {
      await ctx.services.passwordResets.requestReset(req.body?.email);
      if (wantsJson(req)) return res.json({ message: translate('en', 'site.forgot.sent') });
      const lang = requestLanguage(req);
      res
        .type('html')
        .send(forgotPage({ csrf: csrf.token(req, res), info: translate(lang, 'site.forgot.sent'), lang }));
    }),
  );

  r.get(
    '/reset-password/:token',
    route(async (req, res) => {
      const valid = await ctx.services.passwordResets.isValid(req.params.token);
      const lang = requestLanguage(req);
      const page = resetPage({ csrf: csrf.token(req, res), token: req.params.token, valid, lang });
      if (valid) res.type('html').send(page);
      else sendErrorPage(res, new GoneError('This password reset link is invalid or has expired.'), page);
    }),
  );

  r.post(
    '/reset-password/:token',
    csrf.protect,
    route(async (req, res) => {
      try {
        await ctx.services.passwordResets.resetPassword(req.params.token, req.body ?? {});
      } catch (err) {
        if (!(err instanceof ValidationError) || wantsJson(req)) throw err;
        const valid = await ctx.services.passwordResets.isValid(req.params.token);
        const form = { csrf: csrf.token(req, res), token: req.params.token, valid, error: err.message };
        return sendErrorPage(res, err, resetPage({ ...form, lang: requestLanguage(req) }));
      }
      if (wantsJson(req)) return res.json({ message: 'Your password has been reset.' });
      const lang = requestLanguage(req);
      res.type('html').send(loginPage({ csrf: csrf.token(req, res), info: translate(lang, 'site.reset.done'), lang }));
    }),
  );
}

export function createAuthRoutes(ctx: AppContext, auth: passport.PassportStatic, csrf: Csrf): Router {
  const r = express.Router();
  addLoginRoutes(r, ctx, auth, csrf);
  addResetRoutes(r, ctx, csrf);
  return r;
}
