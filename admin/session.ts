import connectSessionSequelize from 'connect-session-sequelize';
import type { RequestHandler } from 'express';
import session from 'express-session';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { userActor } from '../src/actor.js';
import type { AppContext } from '../src/app-context.js';
import { normalizeEmail } from '../src/email.js';
import type { Language } from '../src/languages.js';
import { requestLanguage } from './locale-text.js';

/** The login form's email (trimmed, lower case) and password, from the body only; null unless both are strings. */
export function loginCredentials(req: { body?: unknown }): { email: string; password: string } | null {
  const { email, password } = (req.body ?? {}) as { email?: unknown; password?: unknown };
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return null;
  return { email: normalizeEmail(email), password };
}

/** What the session keeps of the logged-in user (serialised id) and what req.user holds per request. */
export interface SessionUser {
  id: number;
  account_id: number;
  role: 'admin' | 'seller' | 'agent';
  name: string;
  email: string;
  /** The panel language the user chose; null follows the browser (admin/locale-text.ts, requestLanguage). */
  language?: Language | null;
  /** The time zone of the user's account (src/time-zones.ts): the panel's times where a record names no account. */
  time_zone?: string;
  /** At login only: the password-change mark read with the password that was checked. */
  credentials_changed_at?: Date | null;
}

declare module 'express-session' {
  interface SessionData {
    loginAt?: number;
  }
}

declare global {
  /* eslint-disable-next-line @typescript-eslint/no-namespace --
     Express's types are augmented through its global namespace */
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends SessionUser {}
  }
}

export const SESSION_COOKIE = 'leadflow.sid';

/** The dashboard's passport: email + password login (passport-local), the session holding the user's id. */
function createPassport(ctx: AppContext): passport.PassportStatic {
  const auth = new passport.Passport() as unknown as passport.PassportStatic;
  // passport-local falls back to the query string; the credentials are read from the body only, typed, exactly as the
  // login throttle keys them (loginCredentials), so a try cannot be counted under one email and checked under another.
  auth.use(
    'local',
    new LocalStrategy(
      { usernameField: 'email', passwordField: 'password', passReqToCallback: true },
      (req, _email, _password, done) => {
        const creds = loginCredentials(req);
        if (!creds) return done(null, false);
        // done() runs the login route's callback; a throw there must reach Express as an error, not float as an
        // unhandled rejection that ends the process
        ctx.services.accounts.verifyCredentials(creds.email, creds.password).then((u) => {
          try {
            done(null, u ?? false);
          } catch (err) {
            done(err);
          }
        }, done);
      },
    ),
  );
  auth.serializeUser((user, done) => done(null, (user as SessionUser).id));
  auth.deserializeUser((id: number, done) => {
    const { Account, User } = ctx.models;
    const include = [{ model: Account, attributes: ['time_zone'] }];
    User.findOne({ where: { id, active: true }, include }).then((u) => {
      if (!u) return done(null, false);
      const time_zone = (u as unknown as { Account?: { time_zone: string } }).Account?.time_zone;
      const { language } = u;
      done(null, {
        id: u.id,
        account_id: u.account_id,
        role: u.role,
        name: u.name,
        email: u.email,
        time_zone,
        language,
      });
    }, done);
  });
  return auth;
}

/**
 * Session cookie (httpOnly, SameSite=Lax, Secure behind TLS) stored in the `sessions` table; rolling idle timeout
 * through the cookie's maxAge, absolute timeout through the login time kept in the session.
 */
export function createSessionMiddleware(ctx: AppContext): {
  session: RequestHandler;
  passport: passport.PassportStatic;
  absoluteTimeout: RequestHandler;
} {
  const SequelizeStore = connectSessionSequelize(session.Store);
  const store = new SequelizeStore({
    db: ctx.db.sequelize,
    table: 'Session',
    extendDefaultFields: (defaults: { data: string; expires: Date }, s: { passport?: { user?: number } }) => ({
      data: defaults.data,
      expires: defaults.expires,
      user_id: s.passport?.user ?? null,
    }),
  });

  const auth = createPassport(ctx);

  const absoluteMs = ctx.config.sessionAbsoluteHours * 3600_000;
  const absoluteTimeout: RequestHandler = (req, _res, next) => {
    if (req.user && req.session.loginAt && Date.now() - req.session.loginAt > absoluteMs) {
      req.logout(() => req.session.destroy(() => next()));
      delete (req as { user?: unknown }).user;
      return;
    }
    if (req.user) req.actor = userActor({ ...req.user, language: requestLanguage(req) }, req.session.id);
    next();
  };

  return {
    session: session({
      name: SESSION_COOKIE,
      secret: ctx.config.sessionSecret,
      store,
      resave: false,
      saveUninitialized: false,
      rolling: true,
      proxy: ctx.config.trustProxy,
      cookie: {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.config.trustProxy ? 'auto' : false,
        maxAge: ctx.config.sessionIdleMinutes * 60_000,
      },
    }),
    passport: auth,
    absoluteTimeout,
  };
}
