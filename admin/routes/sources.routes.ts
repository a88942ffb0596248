import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { addSourceRoutes } from '../../http/source-routes.js';

/** The dashboard's lead source routes (session + CSRF): the REST API's paths and answers (http/source-routes.ts). */
export function createDashboardSourceRoutes(ctx: AppContext): Router {
  const r = express.Router();
  addSourceRoutes(r, ctx.services.sources, { update: ['put', 'patch'] });
  return r;
}
