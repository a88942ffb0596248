import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { addWebhookRoutes } from '../../http/webhook-routes.js';

/**
 * The dashboard's webhook routes (session + CSRF): the REST API's paths and answers (http/webhook-routes.ts, shared),
 * with PATCH for an update as the dashboard's other edits.
 */
export function createDashboardWebhookRoutes(ctx: AppContext): Router {
  const r = express.Router();
  addWebhookRoutes(r, ctx.services.webhooks, { update: 'patch' });
  return r;
}
