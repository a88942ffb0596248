import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got: its path, headers, the raw body and the body parsed. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: { id: string; event: string; created_at: string; account_id: number; data: Record<string, any> };
}

/**
 * A real HTTP receiver on 127.0.0.1 for webhook deliveries. `answer` decides each request's status (default 200) and
 * may delay it; every request is recorded in arrival order.
 */
export async function startReceiver() {
  const received: Received[] = [];
  let answer: (r: Received) => number | Promise<number> = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const r: Received = { path: req.url ?? '', headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) };
      received.push(r);
      void Promise.resolve(answer(r)).then((status) => {
        res.statusCode = status;
        res.end(status >= 400 ? 'receiver says no' : 'ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    received,
    url: (path = '/hook') => `${base}${path}`,
    at: (path: string) => received.filter((r) => r.path === path),
    answerWith(fn: typeof answer) {
      answer = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A receiver that never answers: it accepts each connection, reads the request and leaves it hanging (the sender's
 * timeout ends the attempt). `requests` counts what arrived.
 */
export async function startDeadReceiver() {
  let requests = 0;
  const server = http.createServer((req) => {
    requests++;
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path = '/dead') => `${base}${path}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type DeadReceiver = Awaited<ReturnType<typeof startDeadReceiver>>;

/**
 * A receiver for the enclosing `describe`: started before its tests and closed after them. Use it inside tests, once
 * it has started; `received` is the live receiver's list.
 */
export function useReceiver(): Omit<Receiver, 'close'> {
  let receiver: Receiver | undefined;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
  });
  const live = (): Receiver => {
    if (!receiver) throw new Error('the receiver starts in the before hook: use it inside tests');
    return receiver;
  };
  return {
    get received() {
      return live().received;
    },
    url: (path?: string) => live().url(path),
    at: (path: string) => live().at(path),
    answerWith: (fn) => live().answerWith(fn),
  };
}
