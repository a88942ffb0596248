import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { startWebServer, type WebServer } from '../api/server.js';
import type { AppContext } from '../src/app-context.js';
import { getCtx } from './hooks.js';

/** Starts the real HTTP app on an ephemeral loopback port; tests close it in `after`. */
export async function startTestServer(ctx: AppContext = getCtx()): Promise<WebServer & { url: string }> {
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  return { ...web, url: `http://127.0.0.1:${(web.server.address() as AddressInfo).port}` };
}

export type { http };
