/** LeadFlow processes as children, for tests and benches; nothing here needs the suite's own context. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** The environment of a spawned LeadFlow process: the suite's, minus its database choice, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: 'fast',
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
  };
  delete base.DATABASE_URL;
  return { ...base, ...env };
}

/** `npm start` (app/main.ts) as a child process, with its output collected in `output.text`. */
export function runMain(
  env: Record<string, string>,
  args: string[] = [],
): ChildProcessWithoutNullStreams & { output: { text: string } } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts', ...args], {
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout.on('data', (d) => (output.text += d));
  child.stderr.on('data', (d) => (output.text += d));
  return Object.assign(child, { output });
}

/** One operator CLI command (`npm run cli -- … --json`); resolves with its JSON answer. */
export async function runCli(env: Record<string, string>, args: string[]): Promise<Record<string, any>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args, '--json'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`cli ${args[0]} exited ${code}: ${err}${out}`);
  return JSON.parse(out.trim().split('\n').pop()!);
}

export async function waitFor(fn: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * The child's exit code once it has exited (null when a signal ended it). A child a signal killed keeps exitCode null
 * and says so in signalCode: asked after its 'exit' had fired, the wait never ended (lost-push's 180 s timeout in a
 * clean-clone CI run, its web process gone by SIGKILL before the test asked).
 */
export const exited = (child: {
  exitCode: number | null;
  signalCode?: NodeJS.Signals | null;
  on(e: 'exit', f: (code: number | null) => void): unknown;
}) =>
  child.exitCode !== null || child.signalCode
    ? Promise.resolve(child.exitCode)
    : new Promise<number | null>((r) => child.on('exit', r));

/**
 * A port for a child process to listen on, below Linux's ephemeral range (32768–60999): a port drawn from that range
 * can already be the local end of some outgoing connection (a database client), and the child then fails to listen.
 */
export const randomPort = () => {
  // shards of test/run.ts running at once each draw from their own 1,500 ports (up to 8 shards)
  const shard = Number(process.env.TEST_SHARD ?? 0) % 8;
  return 20000 + shard * 1500 + Math.floor(Math.random() * 1500);
};
