import cookieParser from 'cookie-parser';
import express, { type Express, type Router } from 'express';
import type { AppContext } from '../src/context.js';
import { createCsrf, requireUser } from './auth.js';
import { choosePanelBundle } from './panel-components.js';
import { createApiKeyRoutes } from './routes/api-keys.routes.js';
import { createAuthRoutes } from './routes/auth.routes.js';
import { createDashboardHistoryRoutes } from './routes/dashboard-histories.routes.js';
import { createDashboardLeadRoutes } from './routes/dashboard-leads.routes.js';
import { createTransferRoutes } from './routes/transfers.routes.js';
import { createDashboardWebhookRoutes } from './routes/webhooks.routes.js';
import { createSessionMiddleware } from './session.js';

/** Paths of the spec's session-authenticated dashboard routes. */
const DASHBOARD_PREFIXES = [
  '/leads',
  '/orders-histories',
  '/lead-histories',
  '/settings',
  '/imports',
  '/exports',
  '/webhooks',
];

/**
 * Session login, the spec's dashboard routes and the AdminJS panel, all on one session cookie.
 * Order matters: session and passport first; then body parsers and CSRF for our routes.
 */
export async function mountDashboard(app: Express, ctx: AppContext): Promise<void> {
  const { session, passport, absoluteTimeout } = createSessionMiddleware(ctx);
  const csrf = createCsrf(ctx);
  app.use(cookieParser());
  app.use(session);
  app.use(passport.initialize());
  app.use(passport.session());
  app.use(absoluteTimeout);
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

  app.use(express.urlencoded({ extended: false, limit: '1mb' }), express.json({ limit: '1mb' }));
  app.use(createAuthRoutes(ctx, passport, csrf));

  app.use(DASHBOARD_PREFIXES, requireUser, csrf.protect);
  app.use(
    createDashboardLeadRoutes(ctx),
    createDashboardHistoryRoutes(ctx),
    createApiKeyRoutes(ctx),
    createTransferRoutes(ctx),
    createDashboardWebhookRoutes(ctx),
  );
}
