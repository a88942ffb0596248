import crypto from 'node:crypto';
import http from 'node:http';
import type { RequestHandler } from 'express';
import type { AppContext } from '../src/app-context.js';
import { listen } from './listen.js';

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

/** True when no token is required, or the request carries `Authorization: Bearer <METRICS_TOKEN>`. */
function authorised(ctx: AppContext, authorization: string | undefined): boolean {
  const token = ctx.config.metricsToken;
  if (!token) return true;
  const given = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? '';
  return crypto.timingSafeEqual(digest(given), digest(token));
}

async function answer(
  ctx: AppContext,
  authorization: string | undefined,
): Promise<{ status: number; type: string; body: string }> {
  if (!authorised(ctx, authorization))
    return { status: 401, type: 'application/json', body: JSON.stringify({ message: 'Unauthenticated.' }) };
  const { contentType, body } = await ctx.metrics.render();
  return { status: 200, type: contentType, body };
}

/** `/metrics` on the main port: only with METRICS_TOKEN set, and only for a caller presenting it. */
export function metricsRoute(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    if (!ctx.config.metricsToken) return next(); // not served on the public port without a token: the 404 below
    answer(ctx, req.headers.authorization).then(({ status, type, body }) => {
      if (status === 401) res.set('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(status).type(type).send(body);
    }, next);
  };
}

/**
 * METRICS_PORT: a listener of its own that serves `/metrics` and nothing else, for every role (a worker has no web
 * port), on METRICS_HOST (loopback unless the operator opens it). METRICS_TOKEN, when set, is required there too.
 */
export async function startMetricsServer(
  ctx: AppContext,
  port: number,
  host = ctx.config.metricsHost,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not found.' }));
      return;
    }
    answer(ctx, req.headers.authorization).then(
      ({ status, type, body }) => {
        res.writeHead(status, { 'content-type': type }).end(body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Server Error' }));
      },
    );
  });
  const bound = await listen(server, port, host, 'METRICS_PORT');
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
