import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { methodNotAllowed } from '../../http/route-helpers.js';
import { addBlocklistRoutes } from '../../http/blocklist-routes.js';

/**
 * An account's blocked phones (docs/api.md "Blocklist"); scope MANAGE BLOCKLIST. The routes are
 * http/blocklist-routes.ts, shared with the dashboard; every rule lives in services.blocklist.
 */
export function createBlocklistRoutes(ctx: AppContext): Router {
  const r = express.Router();
  addBlocklistRoutes(r, ctx.services.blocklist, methodNotAllowed);
  return r;
}
