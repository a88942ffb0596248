import cookieParser from 'cookie-parser';
import express, { type Express, type Router } from 'express';
import type { AppContext } from '../src/app-context.js';
import { refuseUnfitBody, refuseUnfitInput } from '../http/input-guard.js';
import { sessionRateLimit } from '../http/rate-limit.js';
import { createCsrf, requireUser } from './auth.js';
import { choosePanelBundle } from './panel-components.js';
import { createApiKeyRoutes } from './routes/api-keys.routes.js';
import { createDashboardBlocklistRoutes } from './routes/blocklist.routes.js';
import { createDashboardSourceRoutes } from './routes/sources.routes.js';
import { createDashboardStockRoutes } from './routes/stock.routes.js';
import { createAuthRoutes } from './routes/auth.routes.js';
import { createInvitationRoutes } from './routes/invitation.routes.js';
import { createLanguageRoutes } from './routes/language.routes.js';
import { rememberLanguageChoice } from './locale-text.js';
import { createDashboardHistoryRoutes } from './routes/dashboard-histories.routes.js';
import { createDashboardLeadRoutes } from './routes/dashboard-leads.routes.js';
import { createTransferRoutes } from './routes/transfers.routes.js';
import { createDashboardWebhookRoutes } from './routes/webhooks.routes.js';
import { createSessionMiddleware } from './session.js';

/** The imports' uploads (admin/routes/transfers.routes.ts, stock.routes.ts): multipart, read after the role check. */
export const MULTIPART_ONLY_PATH = /^\/(leads|stock)\/import\/?$/i;

/** Paths of the spec's session-authenticated dashboard routes. */
const DASHBOARD_PREFIXES = [
  '/leads',
  '/orders-histories',
  '/lead-histories',
  '/settings',
  '/imports',
  '/exports',
  '/webhooks',
  '/blocklist',
  '/sources',
  '/stock',
];

/**
 * Session login, the spec's dashboard routes and the AdminJS panel, all on one session cookie.
 * Order matters: session and passport first; then body parsers and CSRF for our routes.
 */
export async function mountDashboard(app: Express, ctx: AppContext): Promise<void> {
  const { session, passport, absoluteTimeout } = createSessionMiddleware(ctx);
  const csrf = createCsrf(ctx);
  app.use(cookieParser());
  // a page's ?lang= link (the login page's language menu) is kept in a cookie for the pages before login
  app.use(['/login', '/reset-password', '/invitation'], rememberLanguageChoice);
  app.use(session);
  app.use(passport.initialize());
  app.use(passport.session());
  app.use(absoluteTimeout);
  // a human's ceiling on the session routes, counted per user (per IP before login) before any of them does work
  app.use(
    ['/admin/api', ...DASHBOARD_PREFIXES],
    sessionRateLimit({
      limit: ctx.config.sessionRatePerMinute,
      redisUrl: ctx.config.redisUrl,
      refused: () => ctx.metrics.rateLimited.inc({ limiter: 'session' }),
    }),
  );
  app.get('/', (req, res) => res.redirect(req.user ? '/admin' : '/login'));
  // AdminJS parses its own bodies (formidable), so it is mounted before the body parsers of our routes. Loading it
  // costs seconds of CPU, so it is built after start-up (or on the first /admin request), never before listening.
  let panel: Promise<Router> | null = null;
  const loadPanel = () =>
    (panel ??= (async () => {
      // AdminJS reads its bundle folder when its modules load, so it is chosen before the first import.
      const bundle = choosePanelBundle(ctx.config.dataDir);
      return (await import('./admin.js')).buildPanelRouter(ctx, bundle);
    })());
  setTimeout(
    () => void loadPanel().catch((err) => ctx.logger.error({ err }, 'admin panel failed to load')),
    1500,
  ).unref();
  app.use('/admin', (req, res, next) => {
    loadPanel().then((router) => router(req, res, next), next);
  });

  // Identity before any body on the dashboard routes (issue 29): a stranger's body is never read. The import takes
  // only a multipart file, read by its route after the role check: no other parser reads its body.
  app.use(DASHBOARD_PREFIXES, requireUser);
  const form = express.urlencoded({ extended: false, limit: '1mb' });
  const json = express.json({ limit: '1mb' });
  app.use((req, res, next) =>
    MULTIPART_ONLY_PATH.test(req.path) ? next() : form(req, res, (err) => (err ? next(err) : json(req, res, next))),
  );
  // sign-in and reset forms too: a prototype-named key or a lone surrogate in a body is a 422 (http/input-guard.ts)
  app.use(refuseUnfitBody);
  app.use(createAuthRoutes(ctx, passport, csrf));
  app.use(createInvitationRoutes(ctx, csrf));

  // …and in the dashboard's queries, no control character either (REST's rule)
  app.use(DASHBOARD_PREFIXES, csrf.protect, refuseUnfitInput);
  app.use(
    createDashboardLeadRoutes(ctx),
    createDashboardHistoryRoutes(ctx),
    createApiKeyRoutes(ctx),
    createTransferRoutes(ctx),
    createDashboardWebhookRoutes(ctx),
    createDashboardBlocklistRoutes(ctx),
    createDashboardSourceRoutes(ctx),
    createDashboardStockRoutes(ctx),
    createLanguageRoutes(ctx),
  );
}
