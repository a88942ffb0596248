import express, { type Request, type RequestHandler, type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { route } from '../../http/async.js';
import { methodNotAllowed } from '../../http/route-helpers.js';
import { storeRateLimits } from '../../http/rate-limit.js';
import { STORE_BODY_MAX_BYTES, STORE_PLATFORMS, type StoreKind } from '../../src/sources/store-intake.service.js';

const meta = (req: Request) => ({ headers: req.headers, clientIp: req.ip ?? null });

/**
 * POST /intake/shopify/{public_key} and /intake/woocommerce/{public_key}: a shop's order webhook
 * (docs/lead-sources.md). Public and signed, not behind a token, like the carrier callback: the body is read here as
 * raw bytes, never parsed before the service has checked the HMAC over exactly those bytes. At most
 * STORE_BODY_MAX_BYTES: a larger delivery is logged against its source, then answered 413 by the error handler.
 */
export function createStoreIntakeRoutes(ctx: AppContext): Router {
  const r = express.Router();
  const intake = ctx.services.storeIntake;
  const raw = express.raw({ type: () => true, limit: STORE_BODY_MAX_BYTES });
  // refused deliveries only (a bad signature, a 404, a body too large): the forms' figures per address and per source
  const limits = storeRateLimits({
    perIp: ctx.config.forms.ratePerIp,
    perSource: ctx.config.forms.ratePerSource,
    redisUrl: ctx.config.redisUrl,
    refused: () => ctx.metrics.rateLimited.inc({ limiter: 'store' }),
  });
  for (const kind of Object.keys(STORE_PLATFORMS) as StoreKind[]) {
    const path = `/intake/${kind}/:public_key`;
    const readBody: RequestHandler = (req, res, next) =>
      raw(req, res, (err?: unknown) => {
        if ((err as { type?: string } | undefined)?.type !== 'entity.too.large') return next(err);
        intake.refuseOversized(kind, req.params.public_key, meta(req)).then(() => next(err), next);
      });
    r.post(
      path,
      ...limits,
      readBody,
      route(async (req, res) => {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        res.json(await intake.receive(kind, req.params.public_key, { ...meta(req), raw: body }));
      }),
    );
    r.all(path, methodNotAllowed);
  }
  return r;
}
