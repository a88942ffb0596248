import http from 'node:http';
import type { AppContext } from '../src/app-context.js';
import { createApp } from './app.js';

export interface WebServer {
  server: http.Server;
  port: number;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  close(): Promise<void>;
}

export async function startWebServer(ctx: AppContext, port = ctx.config.port, host = ctx.config.host): Promise<WebServer> {
  const app = await createApp(ctx);
  const server = http.createServer(app);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as { port: number }).port;
  return {
    server,
    port: actualPort,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }),
  };
}
