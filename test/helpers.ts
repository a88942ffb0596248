import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { startWebServer, type WebServer } from '../app/server.js';
import type { AppContext } from '../src/context.js';
import { signBody } from '../src/shipping/shipping.service.js';
import { getCtx } from './hooks.js';

/** Starts the real HTTP app on an ephemeral loopback port; tests close it in `after`. */
export async function startTestServer(ctx: AppContext = getCtx()): Promise<WebServer & { url: string }> {
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  return { ...web, url: `http://127.0.0.1:${(web.server.address() as AddressInfo).port}` };
}

/**
 * The real HTTP app for the enclosing `describe`: started before its tests and closed after them. Read `url` (and
 * `server`) inside tests, once it has started.
 */
export function useTestServer(): { readonly url: string; readonly server: http.Server } {
  let web: Awaited<ReturnType<typeof startTestServer>> | null = null;
  before(async () => {
    web = await startTestServer();
  });
  after(async () => {
    await web?.close();
  });
  const started = () => {
    if (!web) throw new Error('the test server starts in before(): read it inside a test');
    return web;
  };
  return {
    get url() {
      return started().url;
    },
    get server() {
      return started().server;
    },
  };
}

export type { http };

/** A carrier's status callback, signed as carriers sign them (`<timestamp>.<body>`); `at` overrides the timestamp. */
export function postCallback(
  baseUrl: string,
  code: string,
  companyId: number,
  secret: string,
  body: unknown,
  at = Math.floor(Date.now() / 1000),
) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return fetch(`${baseUrl}/api/web/1.0/shipping/${code}/callback?company=${companyId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-timestamp': String(at),
      'x-signature': signBody(secret, `${at}.${raw}`),
    },
    body: raw,
  });
}
