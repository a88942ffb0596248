import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { methodNotAllowed } from '../../http/route-helpers.js';
import { addWebhookRoutes } from '../../http/webhook-routes.js';

/**
 * Webhook endpoints and their delivery log (docs/api.md "Webhooks", docs/webhooks.md); scope MANAGE WEBHOOKS. The
 * routes are http/webhook-routes.ts, shared with the dashboard; every rule lives in services.webhooks.
 */
export function createWebhookRoutes(ctx: AppContext): Router {
  const r = express.Router();
  addWebhookRoutes(r, ctx.services.webhooks, { update: 'put', otherMethods: methodNotAllowed });
  return r;
}
