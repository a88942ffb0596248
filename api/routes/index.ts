import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { NotFoundError } from '../../src/errors.js';
import { dropBodyToken, resolveBearer, requireToken } from '../middleware/bearer-auth.js';
import { accountRateLimit, restRateLimit } from '../../http/rate-limit.js';
import { refuseUnfitInput } from '../../http/input-guard.js';
import { createBlocklistRoutes } from './blocklist.routes.js';
import { createStockRoutes } from './stock.routes.js';
import { createCashRoutes } from './cash.routes.js';
import { createFormIntakeRoutes } from './form-intake.routes.js';
import { createHistoryRoutes } from './histories.routes.js';
import { createLeadRoutes } from './leads.routes.js';
import { createOrderRoutes } from './orders.routes.js';
import { createQueueRoutes } from './queue.routes.js';
import { createSourceRoutes } from './sources.routes.js';
import { createShippingCallbackRoutes } from './shipping.routes.js';
import { createStoreIntakeRoutes } from './store-intake.routes.js';
import { createWebhookRoutes } from './webhooks.routes.js';
import { openApiDocument } from '../openapi.js';

/**
 * The REST API under /api/web/1.0: bearer token, the per-token rate limit (per IP without a valid token) and the
 * account's budget, all before a byte of the body is read; then the JSON body (5 MB: 1,000 leads × 100 products fit)
 * and the resources. A request without a valid token, or over a budget, is answered without its body being parsed.
 */
export function createRestRouter(ctx: AppContext): Router {
  const router = express.Router();
  const { config } = ctx;
  const limits = {
    perToken: config.rateLimitPerMinute,
    perAccount: config.rateLimitAccountPerMinute,
    callback: config.callbackRatePerMinute,
  };
  const document = openApiDocument(limits); // built once: the figures are the configured ones
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  // public and signed: they read their own raw body, and come before the token
  router.use(createShippingCallbackRoutes(ctx));
  router.use(createStoreIntakeRoutes(ctx)); // shops' order webhooks (issue 34), signed over their raw body
  router.use(createFormIntakeRoutes(ctx));
  router.use(resolveBearer(ctx.services.tokens));
  router.use(
    restRateLimit({
      limit: ctx.config.rateLimitPerMinute,
      redisUrl: ctx.config.redisUrl,
      refused: () => ctx.metrics.rateLimited.inc({ limiter: 'rest' }),
    }),
    accountRateLimit({
      limit: ctx.config.rateLimitAccountPerMinute,
      redisUrl: ctx.config.redisUrl,
      refused: () => ctx.metrics.rateLimited.inc({ limiter: 'rest-account' }),
    }),
  );
  router.use(requireToken);
  router.use(express.json({ limit: '5mb', type: () => true, strict: true }), dropBodyToken);
  router.use(refuseUnfitInput); // no prototype-named key, control character or lone surrogate: a 422
  router.use(createLeadRoutes(ctx));
  router.use(createHistoryRoutes(ctx));
  router.use(createOrderRoutes(ctx));
  router.use(createQueueRoutes(ctx));
  router.use(createWebhookRoutes(ctx));
  router.use(createBlocklistRoutes(ctx));
  router.use(createSourceRoutes(ctx));
  router.use(createStockRoutes(ctx));
  router.use(createCashRoutes(ctx));
  router.use((_req, _res, next) => next(new NotFoundError()));
  return router;
}
