import type AdminJS from 'adminjs';
import express, { type RequestHandler } from 'express';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../src/errors.js';
import { setOwn } from '../src/validation.js';
import { requestLanguage } from './locale-text.js';
import { FALLBACK_ZONE } from '../src/time-zones.js';
import type { PanelAdmin } from './resources/panel-kit.js';

const PANEL_API = new RegExp(
  '^/api/resources/([^/]+)/(?:actions/([^/]+)(?:/[^/]*)?|search/[^/]*|records/[^/]+/([^/]+)|bulk/([^/]+))/?$',
);

/**
 * AdminJS throws (a 500) on an unknown resource or action, an action called at another kind's address, or recordIds
 * given as a list or left out; those are answered "not found" before they reach it.
 */
export function knownActions(admin: AdminJS): RequestHandler {
  return (req, res, next) => {
    const m = PANEL_API.exec(req.path);
    if (!m) return next();
    const [, resourceId, resourceAction, recordAction, bulkAction] = m;
    const resource = admin.resources.find((r) => r.id() === resourceId);
    const action = resource?.decorate().actions[resourceAction ?? recordAction ?? bulkAction ?? 'search'];
    const fits =
      !!action && (recordAction ? action.isRecordType() : bulkAction ? action.isBulkType() : action.isResourceType());
    if (fits && (!bulkAction || typeof req.query.recordIds === 'string')) return next();
    next(new NotFoundError());
  };
}

/** The dashboard session's user becomes AdminJS's currentAdmin; no session → the one login page. */
export const panelSession: RequestHandler = (req, res, next) => {
  // AdminJS's Log out button goes to its logoutPath (/logout, admin/admin.ts); an old link to /admin/logout goes there
  if (req.path === '/logout') {
    res.redirect(303, '/logout');
    return;
  }
  if (!req.user) {
    if (req.xhr || req.path.startsWith('/api/')) return next(new UnauthenticatedError());
    res.redirect(302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    return;
  }
  const admin: PanelAdmin = {
    id: String(req.user.id),
    userId: req.user.id,
    email: req.user.email,
    title: req.user.name,
    role: req.user.role,
    accountId: req.user.account_id,
    timeZone: req.user.time_zone ?? FALLBACK_ZONE,
    sessionId: req.session.id,
    language: requestLanguage(req),
    languageChosen: req.user.language ?? null,
  };
  (req.session as unknown as { adminUser: PanelAdmin }).adminUser = admin;
  next();
};

/**
 * The panel's XHR writes cannot carry our CSRF token, so they must come from a page of this origin: browsers send
 * Origin (or Referer) with every POST, and a cross-site form or script cannot fake it. The session cookie is
 * SameSite=Lax too.
 */
export const sameOriginWrites: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const source = req.get('origin') ?? req.get('referer');
  let host: string | null;
  try {
    host = source ? new URL(source).host : null;
  } catch {
    host = null;
  }
  if (host && host === req.get('host')) return next();
  next(new ForbiddenError('CSRF token mismatch.'));
};

/** AdminJS's page template links a Google Fonts stylesheet; the panel must not reach the network. */
export const dropRemoteFonts: RequestHandler = (_req, res, next) => {
  const send = res.send.bind(res);
  res.send = ((body: unknown) =>
    send(
      typeof body === 'string' ? body.replace(/<link[^>]+fonts\.googleapis\.com[^>]*>/g, '') : body,
    )) as typeof res.send;
  next();
};

const readJson = express.json({ limit: '1mb' });

/**
 * AdminJS's body parser (express-formidable over formidable 1) reads JSON of any size, and on a malformed JSON body
 * calls on twice: a 500, then the handler runs anyway or the connection is cut. JSON bodies are read here instead
 * (up to 1 MB; malformed → 400, larger → 413, in words) and handed over as that parser would have (`req.fields`,
 * marked parsed so it does not read again); form and multipart bodies stay AdminJS's.
 */
export const panelJsonBodies: RequestHandler = (req, res, next) => {
  readJson(req, res, (err?: unknown) => {
    if (err) return next(err);
    if (!req.is('application/json')) return next();
    const fields: Record<string, unknown> = {};
    const body: unknown = req.body;
    if (body && typeof body === 'object' && !Array.isArray(body))
      // kept as own keys, `__proto__` too, so the input rule after this (http/input-guard.ts) sees and refuses them
      for (const [key, value] of Object.entries(body)) setOwn(fields, key, value);
    Object.assign(req, { fields, files: {}, express_formidable: { parsed: true } });
    next();
  });
};
