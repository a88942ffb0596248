import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { methodNotAllowed } from '../../http/route-helpers.js';
import { addSourceRoutes } from '../../http/source-routes.js';

/**
 * An account's lead sources and their intake log (docs/api.md "Lead sources"); scope MANAGE SOURCES. The routes are
 * http/source-routes.ts, shared with the dashboard; every rule lives in services.sources.
 */
export function createSourceRoutes(ctx: AppContext): Router {
  const r = express.Router();
  addSourceRoutes(r, ctx.services.sources, { update: ['put'], otherMethods: methodNotAllowed });
  return r;
}
