import express, { type Express } from 'express';
import helmet from 'helmet';
import type { AppContext } from './context.js';
import { jsonErrorHandler } from '../http/errors.js';
import { metricsRoute } from '../http/metrics.js';
import { observeRequests } from '../http/observe.js';
import { apiDocsHtml, apiDocsRouter } from '../api/docs-page.js';
import { formPages } from '../api/form-pages.js';
import { createRestRouter } from '../api/routes/index.js';
import { mountDashboard } from '../admin/router.js';
import * as pages from '../admin/views/pages.js';
import { contentSecurityPolicy } from '../http/csp.js';
import { NotFoundError } from '../src/errors.js';
import { withTimeout } from '../src/timers.js';

const READY_TIMEOUT_MS = 2000;

/** Every server-rendered page that is not the panel's layout, rendered once for its fixed inline blocks. */
function fixedPages(): string[] {
  const render = Object.values(pages as Record<string, unknown>).filter((p) => typeof p === 'function');
  return [
    apiDocsHtml(),
    ...formPages(),
    ...render.flatMap((page) => [true, false].map((valid) => (page as (o: object) => string)({ csrf: '', valid }))),
  ];
}

/**
 * Builds the HTTP application (no listen): health, REST API, dashboard and panel. Readiness answers 503 while
 * `started()` is false: a first start is ready once its seed has committed.
 */
export async function createApp(ctx: AppContext, started: () => boolean = () => true): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.use(observeRequests(ctx));
  app.use(helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false }));
  // Every answer carries the policy; the inline blocks of the fixed pages are allowed by hash (http/csp.ts).
  app.use(contentSecurityPolicy(fixedPages()));

  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    if (!started()) {
      res.status(503).set('Retry-After', '1').json({ status: 'starting' });
      return;
    }
    try {
      // A server that accepts connections but does not answer must not hold the probe (or the prober) hanging.
      await withTimeout(Promise.all([ctx.db.sequelize.query('SELECT 1'), ctx.jobs.ping()]), READY_TIMEOUT_MS);
      res.json({ status: 'ok', database: 'ok', jobs: 'ok' });
    } catch (err) {
      ctx.logger.warn({ err: (err as Error).message }, 'readiness check failed');
      res.status(503).set('Retry-After', '5').json({ status: 'unavailable' });
    }
  });

  app.get('/metrics', metricsRoute(ctx));

  app.use(apiDocsRouter());
  app.use('/api/web/1.0', createRestRouter(ctx));
  await mountDashboard(app, ctx);

  app.use((_req, _res, next) => next(new NotFoundError()));
  app.use(jsonErrorHandler(ctx.logger));
  return app;
}
