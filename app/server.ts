import http from 'node:http';
import type { AppContext } from './context.js';
import { listen } from '../http/listen.js';
import { createApp } from './web.js';

/** How long in-flight requests may run on after a shutdown begins. */
const CLOSE_GRACE_MS = 6000;

export interface WebServer {
  server: http.Server;
  port: number;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  close(): Promise<void>;
}

/** `started()` (default: always) gates readiness: false until start-up has finished (the first-start seed). */
export async function startWebServer(
  ctx: AppContext,
  port = ctx.config.port,
  host = ctx.config.host,
  opts: { started?: () => boolean } = {},
): Promise<WebServer> {
  const app = await createApp(ctx, opts.started);
  const server = http.createServer(app);
  server.keepAliveTimeout = 5000;
  const actualPort = await listen(server, port, host, 'PORT');
  return {
    server,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve) => {
        // A keep-alive connection goes idle once its in-flight request is answered; it is closed then, not left open.
        const idle = setInterval(() => server.closeIdleConnections(), 100);
        server.close(() => {
          clearInterval(idle);
          resolve();
        });
        server.closeIdleConnections();
        // A request still running after this is cut, so that shutdown stays inside its 10 s.
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}
