import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { startWebServer, type WebServer } from '../app/server.js';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { AppContext } from '../src/app-context.js';
import { signBody } from '../src/shipping/shipping.service.js';
import { getCtx } from './hooks.js';
import { watchAnswers } from './openapi-contract.js';

/**
 * Starts the real HTTP app on an ephemeral loopback port; tests close it in `after`. Every answer it gives under
 * /api/web/1.0 is checked against the OpenAPI document it serves (test/openapi-contract.ts; test/hooks.ts fails the
 * test during which an answer broke it).
 */
export async function startTestServer(ctx: AppContext = getCtx()): Promise<WebServer & { url: string }> {
  const web = await startWebServer(ctx, 0, '127.0.0.1');
  // The server never closes an idle kept-alive socket first: undici (fetch) keeps one for the server's hint less 2 s,
  // and when this process's event loop was busy past both timers, a request could go out on the socket the server was
  // closing (ECONNRESET in CI's panel tenancy walk). close() still ends idle sockets at once.
  web.server.keepAliveTimeout = 10 * 60_000;
  const url = `http://127.0.0.1:${(web.server.address() as AddressInfo).port}`;
  const served = await fetch(`${url}/api/web/1.0/openapi.json`);
  await watchAnswers(web.server, await served.json());
  return { ...web, url };
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

/** One statement a Sequelize instance sent, as logged: its SQL (without Sequelize's prefix) and bind parameters. */
export interface SentStatement {
  sql: string;
  bind: unknown[];
}

/**
 * Runs `fn` and answers the statements `sequelize` sent meanwhile (through Sequelize's `logging` hook, restored
 * afterwards, also when `fn` fails), with what `fn` returned.
 */
export async function captureSql<T>(
  sequelize: Sequelize,
  fn: () => Promise<T>,
): Promise<{ result: T; sent: SentStatement[] }> {
  const options = (sequelize as unknown as { options: { logging: unknown } }).options;
  const previous = options.logging;
  const sent: SentStatement[] = [];
  options.logging = (msg: string, opts: { bind?: unknown[] }) => {
    sent.push({ sql: msg.replace(/^Executing \([^)]*\): /, ''), bind: opts?.bind ?? [] });
  };
  try {
    return { result: await fn(), sent };
  } finally {
    options.logging = previous;
  }
}

/**
 * The plan (EXPLAIN) of the lead insert among `sent` (a captureSql of createMany), in a transaction with `settings`
 * and then the SET LOCALs the service sent before it, as the insert itself ran.
 */
export async function leadInsertPlan(sequelize: Sequelize, sent: SentStatement[], settings = ''): Promise<string> {
  const at = sent.findIndex((s) => s.sql.includes('INSERT INTO leads'));
  return sequelize.transaction(async (transaction) => {
    if (settings) await sequelize.query(settings, { transaction });
    for (const s of sent.slice(0, at).filter((x) => x.sql.startsWith('SET LOCAL')))
      await sequelize.query(s.sql, { transaction });
    const rows = await sequelize.query<Record<string, string>>(`EXPLAIN ${sent[at].sql}`, {
      bind: sent[at].bind,
      transaction,
      type: QueryTypes.SELECT,
    });
    return rows.map((r) => Object.values(r)[0]).join('\n');
  });
}

/**
 * The plan (EXPLAIN) of a captured statement with sequential scans switched off: which index it can use, if any. With
 * `noSort`, sorts are switched off too: a Sort left in the plan means no index gives the statement its order, whatever
 * rows the rest of the database holds (on a small table the planner may rightly prefer sorting a few rows).
 */
export async function planWithoutSeqScan(
  sequelize: Sequelize,
  statement: SentStatement,
  opts: { noSort?: boolean } = {},
): Promise<string> {
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
    if (opts.noSort) await sequelize.query('SET LOCAL enable_sort = off', { transaction });
    const rows = await sequelize.query<Record<string, string>>(`EXPLAIN ${statement.sql}`, {
      bind: statement.bind,
      transaction,
      type: QueryTypes.SELECT,
    });
    return rows.map((r) => Object.values(r)[0]).join('\n');
  });
}

/**
 * An HTTP server on 127.0.0.1 and a free port (a fake carrier, a proxy, a receiver) answering with `handler`. `close`
 * also ends the connections still open, so a test never waits for a keep-alive client.
 */
export async function serveLocal(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: (path = '') => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
