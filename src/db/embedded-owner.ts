import pg from 'pg';
import { delay } from '../timers.js';

/**
 * Which of the processes sharing one embedded server owns it: the one holding a session advisory lock on a
 * connection of its own. Every other process waits for that lock in a blocking `pg_advisory_lock`, so when the
 * owner's session ends (it handed the server over at its shutdown, or it died) one waiting process gets the lock at
 * once and owns the running server from then on: nothing stops, no request sees a 503. The owner stops the server
 * only when nobody waits for it. Lock connections are the superuser's, on the `postgres` database, named
 * `leadflow-owner <pid>` (pg_stat_activity).
 */

/** Each use of the server in this process has its own name (tests open several in one process). */
let instances = 0;

/** The advisory lock key (a constant of this application: PostgreSQL's advisory keys are per database). */
const OWNER_LOCK = 73_110_531;
const LOCK_ROWS = `FROM pg_locks
  WHERE locktype = 'advisory' AND classid = 0 AND objid = ${OWNER_LOCK} AND objsubid = 1`;

export interface Ownership {
  /** True while this process holds the server. */
  readonly owner: boolean;
  /** Resolves once the first session knows whether this process owns the server or waits for it. */
  readonly settled: Promise<void>;
  /**
   * At this process's stop: when another process waits for the server, lets it take it (and answers true once it
   * has); otherwise answers false and keeps the lock, so the caller stops the server.
   */
  handOver(): Promise<boolean>;
  /**
   * Whether another session holds or waits for the server (for a process that is not the owner at its stop: if
   * nobody is, it is the last one and stops the server). True when the server does not answer (nothing to stop).
   */
  othersUse(): Promise<boolean>;
  /** Ends the lock connection (its lock with it). */
  close(): Promise<void>;
}

/** The pid in the application name of the connection holding the lock, or null. */
async function ownerPid(client: pg.Client): Promise<number | null> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT a.application_name AS name FROM pg_stat_activity a
      WHERE a.pid = (SELECT pid ${LOCK_ROWS} AND granted LIMIT 1)`,
  );
  const pid = Number(/^leadflow-owner (\d+)/.exec(rows[0]?.name ?? '')?.[1]);
  return pid > 0 ? pid : null;
}

/**
 * Ends the owner's session (`end`) and answers whether a waiting process took the lock within 2 s; false when the
 * process that waited went away meanwhile (the caller then stops the server itself).
 */
async function letGo(url: string, end: () => Promise<void>): Promise<boolean> {
  const check = new pg.Client({ connectionString: url, application_name: `leadflow-handover ${process.pid}` });
  check.on('error', () => {});
  await check.connect();
  try {
    await end();
    for (let i = 0; i < 40; i++) {
      const held = await check.query<{ n: number }>(`SELECT count(*)::int AS n ${LOCK_ROWS} AND granted`);
      if (held.rows[0].n > 0) return true;
      if ((await waiting(check)) === 0) return false;
      await delay(50);
    }
    return false;
  } finally {
    await check.end().catch(() => {});
  }
}

async function othersUse(url: string, name: string): Promise<boolean> {
  const check = new pg.Client({ connectionString: url, application_name: `leadflow-check ${process.pid}` });
  check.on('error', () => {});
  try {
    await check.connect();
    const { rows } = await check.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name <> $1 AND pid IN (SELECT pid ${LOCK_ROWS})`,
      [name],
    );
    return rows[0].n > 0;
  } catch {
    return true;
  } finally {
    void check.end().catch(() => {});
  }
}

async function waiting(client: pg.Client): Promise<number> {
  return (await client.query<{ n: number }>(`SELECT count(*)::int AS n ${LOCK_ROWS} AND NOT granted`)).rows[0].n;
}

/**
 * Takes the lock on `c`: at once (answers null), or, when another session holds it, after calling `waiting` and
 * waiting for that session to end (answers the pid of the process it belonged to, when known).
 */
async function lock(c: pg.Client, waiting: () => void): Promise<{ from: number | null } | null> {
  // a session waiting for a lock reads nothing from its client: without this check, one whose process had gone
  // would stay in the lock's queue, be handed the server, and leave it with nobody
  await c.query(`SET client_connection_check_interval = '100ms'`);
  const got = (await c.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [OWNER_LOCK])).rows[0].got;
  if (got) return null;
  const taken = { from: await ownerPid(c) };
  waiting();
  await c.query('SELECT pg_advisory_lock($1)', [OWNER_LOCK]); // returns when the owner's session has ended
  return taken;
}

/**
 * Takes part in the ownership of the server at `url` (a superuser's URL on the `postgres` database) for as long as
 * this process uses it. `on.owner` is called each time this process becomes the owner: with `taken` (and the pid of
 * the process it took the server from, when known) after waiting for another owner, null when nobody held it (a
 * first start, or a server started again after it stopped); `on.waiting` when this one starts waiting.
 * A lost connection (the server stopped) is opened again every 100 ms, then the lock asked for again.
 */
export function shareOwnership(
  url: string,
  on: { owner(taken: { from: number | null } | null): void; waiting(): void },
): Ownership {
  const name = `leadflow-owner ${process.pid}.${++instances}`;
  let client: pg.Client | null = null;
  let owner = false;
  let closed = false;
  let settle = () => {};
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const session = async () => {
    const c = new pg.Client({ connectionString: url, application_name: name });
    client = c;
    const lost = new Promise<void>((resolve) => {
      c.on('error', () => resolve());
      c.on('end', () => resolve());
    });
    await c.connect();
    // closed meanwhile (end() may have met the client still connecting): this session must not take or wait for the
    // lock, or it would hold the server for a process that has let go of it
    if (closed) return void (await c.end().catch(() => {}));
    const taken = await lock(c, () => {
      on.waiting();
      settle();
    });
    if (closed) return void (await c.end().catch(() => {}));
    owner = true;
    on.owner(taken);
    settle();
    await lost;
    owner = false;
  };
  void (async () => {
    while (!closed) {
      await session().catch(() => {
        owner = false;
        settle(); // the server is not there (it stopped): the watch starts it again, and the lock is asked again
      });
      if (!closed) await delay(100); // unref'd: this loop alone keeps no process alive
    }
  })();
  const end = async () => {
    closed = true;
    owner = false;
    // not awaited: on a connection the server already closed (it was stopped), pg's end() never resolves
    void (client as pg.Client | null)?.end().catch(() => {});
  };
  return {
    get owner() {
      return owner;
    },
    settled,
    async handOver() {
      if (!owner || !client) return false;
      if ((await waiting(client).catch(() => 0)) === 0) return false;
      return letGo(url, end);
    },
    othersUse: () => othersUse(url, name),
    async close() {
      await end();
    },
  };
}
