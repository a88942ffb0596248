import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import type { Scope } from '../../src/actor.js';
import { route } from '../../http/async.js';
import { respond } from './respond.js';
import { requestedScopes } from '../../src/tokens/scope-presets.js';

/** Settings → API Keys: list (never the secret), generate (the token is shown once), revoke (immediate). */
export function createApiKeyRoutes(ctx: AppContext): Router {
  const { tokens } = ctx.services;
  const r = express.Router();
  r.get(
    '/settings/api-keys',
    route(async (req, res) => {
      res.json({ data: await tokens.listTokens(req.actor!) });
    }),
  );
  r.post(
    '/settings/api-keys/generate',
    route(async (req, res) => {
      // `scopes` (a list, or one comma-separated text) or a `preset` of the panel's (src/tokens/scope-presets.ts)
      const asked = requestedScopes(req.body ?? {});
      const scopes = (typeof asked === 'string' ? asked.split(',').map((s) => s.trim()) : asked) as Scope[];
      const { name, expires_at } = req.body ?? {};
      const created = await tokens.createToken(req.actor!, { name, scopes, ...(expires_at ? { expires_at } : {}) });
      res.status(201).json({ message: 'API key generated. Copy it now: it will not be shown again.', data: created });
    }),
  );
  r.delete(
    '/settings/api-keys/:token/delete',
    route(async (req, res) => {
      await tokens.revokeToken(req.actor!, Number(req.params.token));
      respond(req, res, 200, { message: 'API key revoked.' }, '/admin');
    }),
  );
  return r;
}
