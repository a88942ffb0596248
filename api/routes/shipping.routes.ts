import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { BadRequestError, UnauthenticatedError } from '../../src/errors.js';
import { route } from '../../http/async.js';
import { restRateLimit } from '../../http/rate-limit.js';
import { methodNotAllowed } from '../../http/route-helpers.js';
import { counted } from '../../http/counted.js';

const CALLBACK_MAX_BYTES = 256 * 1024;

/**
 * POST /shipping/{code}/callback?company={id}: the carrier's status updates, authenticated by an HMAC signature of
 * `<X-Timestamp>.<raw body>` with the company's secret (X-Signature: sha256=<hex>), not by a bearer token. Its own
 * rate limit per client address, and a small body: a carrier sends status lines, not files. A callback is applied
 * once: the same signature again (a replay within the window) is refused with 409 and changes nothing.
 */
export function createShippingCallbackRoutes(ctx: AppContext): Router {
  const r = express.Router();
  const limit = restRateLimit({
    limit: ctx.config.callbackRatePerMinute,
    redisUrl: ctx.config.redisUrl,
    prefix: 'rl:callback:',
    refused: () => ctx.metrics.rateLimited.inc({ limiter: 'callback' }),
  });
  const count: express.RequestHandler = (_req, res, next) => {
    res.once('finish', () =>
      ctx.metrics.carrierCallbacks.inc({ outcome: res.statusCode < 300 ? 'applied' : 'refused' }),
    );
    next();
  };
  r.post(
    '/shipping/:code/callback',
    count,
    limit,
    express.raw({ type: () => true, limit: CALLBACK_MAX_BYTES }),
    route(async (req, res) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const company = await ctx.services.shipping.verifyCallback(
        req.params.code,
        req.query.company,
        raw,
        req.headers['x-timestamp'],
        req.headers['x-signature'],
      );
      if (!company) throw new UnauthenticatedError('Invalid signature.');
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new BadRequestError('Malformed JSON body.');
      }
      // verified above: the header is `sha256=<hex>` and the timestamp digits within the window
      const seen = {
        signature: String(req.headers['x-signature']).slice('sha256='.length),
        signedAt: new Date(Number(req.headers['x-timestamp']) * 1000),
      };
      const { updated } = await ctx.services.orders.applyCarrierUpdates(company.id, body, seen);
      res.json({ message: `${counted(updated, 'order')} updated.`, updated });
    }),
  );
  // another method on the callback address is a 405, as on the intake addresses (before: the token check's 401)
  r.all('/shipping/:code/callback', methodNotAllowed);
  return r;
}
