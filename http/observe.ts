import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../src/context.js';
import { inRequestScope } from '../src/logger.js';

/**
 * A caller's X-Request-Id is kept only when it is a short token of safe characters (it is echoed in a header and
 * written to logs); anything else is replaced by a new UUID.
 */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The route pattern that answered (`/api/web/1.0/leads/:reference`), never the raw path: bounded label values. */
function routeOf(req: Request, res: Response): string {
  if (req.route?.path) return `${req.baseUrl}${String(req.route.path)}`;
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
