import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../src/app-context.js';
import { inRequestScope } from '../src/logger.js';

/**
 * A caller's X-Request-Id is kept only when it is a short token of safe characters (it is echoed in a header and
 * written to logs); anything else is replaced by a new UUID.
 */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Where the router that matched the request's route is mounted, taken when Express sets `req.route`. */
const routeBase = new WeakMap<Request, string>();

/**
 * Notes the router's mount at the moment Express matches a route (`req.route = route`): `req.baseUrl` is then the
 * mount of the router holding the route. Read later, it may hold path values: a middleware or error handler mounted
 * with a parameter (`use('/intake/forms/:public_key', …)`) sets it to the concrete path, key included.
 */
function watchRoute(req: Request): void {
  let route: unknown = req.route;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value) {
      route = value;
      if (value) routeBase.set(req, req.baseUrl);
    },
  });
}

/**
 * The route pattern that answered (`/api/web/1.0/leads/:reference`), never the raw path: label values from the code's
 * own routes, a bounded set; anything no route matched counts under one label.
 */
function routeOf(req: Request, res: Response): string {
  if (req.route?.path) return `${routeBase.get(req) ?? ''}${String(req.route.path)}`;
  return res.statusCode === 404 ? '(not found)' : '(no route)';
}

/**
 * Request id, access log line and HTTP metrics, in one place. The access line has the method, route pattern, status,
 * duration, request id and account id: no path values, query strings, tokens or customer data.
 */
export function observeRequests(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
    req.id = id;
    watchRoute(req);
    res.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req, res);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      ctx.metrics.httpRequests.inc(labels);
      ctx.metrics.httpDuration.observe(labels, seconds);
      ctx.logger.info(
        {
          req_id: id,
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 10_000) / 10,
          account_id: req.actor?.accountId ?? null,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    inRequestScope(id, next);
  };
}
