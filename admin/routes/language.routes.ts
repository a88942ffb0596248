import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { route } from '../../http/async.js';
import { LANGUAGE_COOKIE } from '../locale-text.js';
import { respond } from './respond.js';

/**
 * POST /settings/language `{language: "fr" | "ar" | "en" | null}`: the signed-in user's panel language, kept on
 * their user (services.accounts.setLanguage), so it follows them to another browser; null follows the browser again.
 * The panel's language menu calls it (admin/components/language-sync.tsx); the cookie keeps the choice for the login
 * page after logging out.
 */
export function createLanguageRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.post(
    '/settings/language',
    route(async (req, res) => {
      const body = (req.body ?? {}) as { language?: unknown };
      const saved = await ctx.services.accounts.setLanguage(req.actor!, body.language);
      if (saved.language)
        res.cookie(LANGUAGE_COOKIE, saved.language, {
          sameSite: 'lax',
          httpOnly: true,
          path: '/',
          maxAge: 365 * 86_400_000,
        });
      else res.clearCookie(LANGUAGE_COOKIE, { path: '/' });
      respond(req, res, 200, { data: saved }, '/admin');
    }),
  );
  return r;
}
