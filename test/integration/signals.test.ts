import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuild, withoutLoader } from '../build.js';
import { exited, randomPort, waitFor } from '../spawn.js';

/** Every process below `pid` now, with its command line (read from /proc, as ps would). */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const children = (p: number): number[] => {
    try {
      return fs
        .readdirSync(`/proc/${p}/task`)
        .flatMap((t) => fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean))
        .map(Number);
    } catch {
      return [];
    }
  };
  const found: { pid: number; cmd: string }[] = [];
  const walk = (p: number) => {
    for (const c of children(p)) {
      const cmd = (() => {
        try {
          return fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        } catch {
          return null; // gone meanwhile
        }
      })();
      if (cmd === null) continue;
      found.push({ pid: c, cmd });
      walk(c);
    }
  };
  walk(pid);
  return found;
}

/** A process that still exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** `npm run <script>` as an operator or a supervisor starts it: its own process group, JSON logs on a pipe. */
function npmRun(script: string, args: string[], env: Record<string, string>) {
  const child = spawn('npm', ['run', script, ...(args.length ? ['--', ...args] : [])], {
    env: withoutLoader({ ...process.env, DATABASE_URL: undefined, LOG_LEVEL: 'info', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { text: '' };
  child.stdout.on('data', (d) => (output.text += d));
  child.stderr.on('data', (d) => (output.text += d));
  return Object.assign(child, { output });
}

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; time: string });

describe('signals: npm scripts stop everything they started', function () {
  this.timeout(180_000);
  let dataDir = '';
  const started: ChildProcessWithoutNullStreams[] = [];

  before(() => {
    dataDir = fs.mkdtempSync(path.resolve('data', 'signals-'));
  });

  after(() => {
    for (const child of started) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Starts the script on the shared DATA_DIR (embedded PostgreSQL, started by the process itself), waits until it is
   * ready, records its process tree, sends `signal` to npm (what a supervisor does) or to the whole process group (a
   * Ctrl-C in a terminal), and expects every process of the tree gone within 10 s, no warning or error line, and a
   * last "stopped" line.
   */
  async function stopsCleanly(script: string, args: string[], signal: NodeJS.Signals, to: 'npm' | 'group') {
    const port = randomPort();
    const npm = npmRun(script, args, {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PASSWORD_HASH_COST: 'fast',
      ADMIN_PASSWORD: 'admin-password-1',
    });
    started.push(npm);
    const ready = await waitFor(async () => {
      if (npm.exitCode !== null) throw new Error(npm.output.text);
      return /LeadFlow (listening|worker)/.test(npm.output.text);
    }, 120_000);
    expect(ready, npm.output.text).to.equal(true);
    const tree = descendants(npm.pid!);
    expect(
      tree.some((p) => / -D .*signals-/.test(p.cmd)),
      `the embedded PostgreSQL is part of the tree:\n${tree.map((p) => p.cmd).join('\n')}`,
    ).to.equal(true);
    const at = Date.now();
    if (to === 'npm') npm.kill(signal);
    else process.kill(-npm.pid!, signal);
    const gone = await waitFor(async () => [npm.pid!, ...tree.map((p) => p.pid)].every((p) => !running(p)), 10_000);
    const survivors = tree.filter((p) => running(p.pid));
    expect(gone, `still running after 10 s: ${survivors.map((p) => p.cmd).join('\n')}`).to.equal(true);
    expect(Date.now() - at).to.be.below(10_000);
    expect(await exited(npm), npm.output.text).to.equal(0);
    const lines = records(npm.output.text);
    expect(
      lines.filter((r) => r.level >= 40),
      'no warning or error for a requested stop',
    ).to.deep.equal([]);
    expect(lines.at(-1)?.msg, npm.output.text).to.equal('stopped');
    expect(
      lines.every((r) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(r.time)),
      'ISO 8601 times',
    ).to.equal(true);
  }

  it('When npm start gets SIGTERM (a supervisor), Then npm, node and the embedded PostgreSQL all stop within 10 s', async () => {
    await stopsCleanly('start', [], 'SIGTERM', 'npm');
  });

  it('When npm run worker gets a Ctrl-C (SIGINT to the process group), Then everything stops, with no WARN line', async () => {
    await stopsCleanly('worker', [], 'SIGINT', 'group');
  });

  it('When npm run start:prod and worker:prod get SIGTERM, Then everything they started stops too', async function () {
    this.timeout(300_000);
    ensureBuild();
    await stopsCleanly('start:prod', ['--role', 'web'], 'SIGTERM', 'npm');
    await stopsCleanly('worker:prod', [], 'SIGINT', 'npm');
  });
});
