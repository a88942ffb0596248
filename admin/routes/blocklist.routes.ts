import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { addBlocklistRoutes } from '../../http/blocklist-routes.js';

/** The dashboard's blocklist routes (session + CSRF): the REST API's paths and answers (http/blocklist-routes.ts). */
export function createDashboardBlocklistRoutes(ctx: AppContext): Router {
  const r = express.Router();
  addBlocklistRoutes(r, ctx.services.blocklist);
  return r;
}
