import crypto from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { within, withTimeout } from '../timers.js';

/** How often the listening connection proves it is alive, and how long it may take to answer. */
const HEARTBEAT_MS = 5000;
const HEARTBEAT_TIMEOUT_MS = 2000;
const RECONNECT_MS = 1000;
/** The longest `settle` waits for every listening process to answer. */
const SETTLE_TIMEOUT_MS = 1000;
/**
 * The listening connection's application_name (pg_stat_activity) is this and the process id, set once it listens (a
 * connection string's own application_name would otherwise win). Processes are told apart by their server pid.
 */
export const LISTENER_NAME = 'leadflow-listener';
/** Where listening processes answer a settle marker: "<marker> <server pid of the listening connection>". */
const SETTLED = 'leadflow_settled';
const MARKER = /^settle:[0-9a-f-]{36}$/;

/** A subscription to one channel: `live()` is false whenever a notification could have been missed. */
export interface Subscription {
  live(): boolean;
}

export interface Notifications {
  /**
   * Calls `onChange` for every NOTIFY on `channel`, and also whenever the listening connection is lost or comes back
   * (what was sent meanwhile is unknown). The connection is opened on the first subscription.
   */
  subscribe(channel: string, onChange: () => void): Subscription;
  /**
   * Resolves once every process listening on this database has handled the notifications committed on `channel`
   * before the call: a marker is sent on the channel, each listening process answers it after its handlers ran, and
   * PostgreSQL delivers notifications in commit order. A change other processes must see at once (a revoked token)
   * calls it after its commit, so its caller is answered after every cache has forgotten. Every listening process must
   * listen on `channel`; one that does not answer within 1 s (hung, gone) is not waited for longer.
   */
  settle(channel: string): Promise<void>;
  close(): Promise<void>;
}

interface Listener {
  url: string;
  logger: Logger;
  handlers: Map<string, (() => void)[]>;
  /** settle() markers waiting for answers: `answered` takes the server pid of each connection that answered. */
  markers: Map<string, { answered(pid: number): void; done(): void }>;
  client: pg.Client | null;
  live: boolean;
  closed: boolean;
  beating?: NodeJS.Timeout;
  retry?: NodeJS.Timeout;
}

const listen = (c: pg.Client, channel: string) => c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);

/**
 * Ends a connection without waiting on a server that stopped answering: pg's end() waits for the server to close,
 * which on a cut network never comes; after a second the socket is destroyed (a listening connection has nothing to
 * flush).
 */
async function endQuickly(c: pg.Client): Promise<void> {
  await within(c.end(), 1000);
  (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

function changedAll(l: Listener): void {
  for (const fns of l.handlers.values()) for (const fn of fns) fn();
}

/** The connection `c` is gone (or no longer trusted): nothing is live until a new one listens again. */
function lost(l: Listener, c: pg.Client, why: string): void {
  if (l.client !== c) return;
  l.client = null;
  l.live = false;
  clearInterval(l.beating);
  changedAll(l);
  for (const m of l.markers.values()) m.done(); // no answer can arrive any more
  void endQuickly(c);
  if (l.closed) return;
  l.logger.warn({ why }, 'notification listener lost; reconnecting');
  l.retry = setTimeout(() => void connect(l), RECONNECT_MS).unref();
}

/** A connection that stopped answering without closing (a cut network) is noticed here; TCP alone notices late. */
function heartbeat(l: Listener, c: pg.Client): void {
  const timeout = setTimeout(() => lost(l, c, 'heartbeat timed out'), HEARTBEAT_TIMEOUT_MS).unref();
  c.query('SELECT 1').then(
    () => clearTimeout(timeout),
    (err: Error) => lost(l, c, err.message),
  );
}

/** A notification: the channel's handlers run first; a settle marker is then answered, an answer counted. */
function notified(l: Listener, c: pg.Client, n: pg.Notification): void {
  if (n.channel === SETTLED) {
    const [marker, pid] = (n.payload ?? '').split(' ');
    return l.markers.get(marker)?.answered(Number(pid));
  }
  l.handlers.get(n.channel)?.forEach((fn) => fn());
  if (n.payload && MARKER.test(n.payload))
    c.query("SELECT pg_notify($1, $2::text || ' ' || pg_backend_pid())", [SETTLED, n.payload]).catch(() => {});
}

async function connect(l: Listener): Promise<void> {
  if (l.closed || l.client) return;
  const c = new pg.Client({ connectionString: l.url, keepAlive: true, connectionTimeoutMillis: 5000 });
  l.client = c;
  c.on('error', (err) => lost(l, c, err.message));
  c.on('end', () => lost(l, c, 'connection ended'));
  c.on('notification', (n) => notified(l, c, n));
  try {
    await c.connect();
    // a channel subscribed meanwhile is listened to as well
    const listened = new Set<string>();
    for (let next = SETTLED; next; next = [...l.handlers.keys()].find((ch) => !listened.has(ch))!) {
      await listen(c, next);
      listened.add(next);
    }
    await c.query('SELECT set_config($1, $2, false)', ['application_name', `${LISTENER_NAME} ${process.pid}`]);
  } catch (err) {
    return lost(l, c, (err as Error).message);
  }
  if (l.client !== c) return;
  changedAll(l); // anything may have changed while nobody listened
  l.live = true;
  l.beating = setInterval(() => heartbeat(l, c), HEARTBEAT_MS).unref();
}

function subscribe(l: Listener, channel: string, onChange: () => void): void {
  const known = l.handlers.get(channel);
  if (known) return void known.push(onChange);
  l.handlers.set(channel, [onChange]);
  const c = l.client;
  if (!c) void connect(l);
  else if (l.live) {
    // a channel added to an open connection: not live until its LISTEN has answered
    l.live = false;
    listen(c, channel).then(
      () => {
        if (l.client === c) l.live = true;
      },
      (err: Error) => lost(l, c, err.message),
    );
  }
}

/** See Notifications.settle. A process that does not listen yet starts now, and waits (within the bound) to be live. */
async function settle(l: Listener, channel: string): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  if (!l.handlers.has(channel)) subscribe(l, channel, () => {});
  while (!l.live && !l.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const c = l.client;
  if (!c || !l.live) return;
  const marker = `settle:${crypto.randomUUID()}`;
  try {
    // the processes listening now; one that starts later has nothing remembered from before the change
    const listeners = c.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1',
      [`${LISTENER_NAME} %`],
    );
    const { rows } = await withTimeout(listeners, Math.max(1, deadline - Date.now()));
    const waiting = new Set(rows.map((r) => Number(r.pid)));
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        l.markers.delete(marker);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now())).unref();
      const answered = (pid: number) => {
        waiting.delete(pid);
        if (waiting.size === 0) done();
      };
      l.markers.set(marker, { answered, done });
      c.query('SELECT pg_notify($1, $2)', [channel, marker]).catch(done);
    });
  } catch {
    // the connection failed (lost() has run, this process remembers nothing) or did not answer in time
  }
}

/**
 * PostgreSQL LISTEN on one connection of its own per process. A cache built on it must treat `live() === false` as
 * "ask the database": between a lost connection and the next LISTEN, notifications are not delivered.
 */
export function createNotifications(url: string, logger: Logger): Notifications {
  const l: Listener = {
    url,
    logger,
    handlers: new Map(),
    markers: new Map(),
    client: null,
    live: false,
    closed: false,
  };
  return {
    subscribe(channel, onChange) {
      subscribe(l, channel, onChange);
      return { live: () => l.live };
    },
    settle: (channel) => settle(l, channel),
    async close() {
      l.closed = true;
      l.live = false;
      clearInterval(l.beating);
      clearTimeout(l.retry);
      for (const m of l.markers.values()) m.done();
      const c = l.client;
      l.client = null;
      if (c) await endQuickly(c);
    },
  };
}
