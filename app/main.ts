import type { startMetricsServer } from '../http/metrics.js';
import type { WebServer } from './server.js';
import type { ProcessContext } from './context.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { startEmbedded } from '../src/db/embedded.js';
import { createLogger } from '../src/logger.js';
import { lockDownDataDir } from '../src/private-files.js';
import { within } from '../src/timers.js';
import type { SeedResult } from '../src/seed.js';

const ROLES = ['web', 'worker', 'all'] as const;
type ProcessRole = (typeof ROLES)[number];

function parseRole(argv: string[]): ProcessRole {
  const i = argv.indexOf('--role');
  const value = i >= 0 ? argv[i + 1] : (argv.find((a) => a.startsWith('--role='))?.slice(7) ?? 'all');
  if (!ROLES.includes(value as ProcessRole))
    throw new ConfigError(`Invalid --role "${value}": expected web, worker or all`);
  return value as ProcessRole;
}

function printSeed(result: SeedResult, appUrl: string): void {
  const demo = result.demo;
  const lines = [
    '',
    `First start: ${demo ? 'admin and demo account' : 'admin'} created. These passwords are shown once.`,
    `  Admin panel:  ${appUrl}/admin`,
    `  Admin:        ${result.admin!.email} / ${result.admin!.password ?? '(ADMIN_PASSWORD)'}`,
    ...(demo
      ? [
          `  Demo seller:  ${demo.seller.email} / ${demo.seller.password}`,
          `  Demo agent:   ${demo.agent.email} / ${demo.agent.password}`,
        ]
      : []),
    `  Lost one? npm run -s cli -- user:password --email <email>`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

let stopping = false;
/** Aborted by a shutdown that begins while the first-start seed runs: the seed rolls back (src/seed.ts). */
const seedAbort = new AbortController();
let seeding: Promise<unknown> = Promise.resolve();

/**
 * The first-start seed (one transaction), its logins printed as soon as it has committed, then one line if no admin
 * login is usable (how to get one).
 */
async function firstStart(ctx: ProcessContext, modules: Modules, appUrl: string): Promise<void> {
  const run = modules.seed(ctx, { signal: seedAbort.signal });
  seeding = run.catch(() => {});
  const seeded = await run;
  if (seeded.created) {
    printSeed(seeded, appUrl);
    await modules.loginsShown(ctx, seeded.admin!.email);
  }
  const hint = await modules.loginHint(ctx);
  if (hint) ctx.logger.warn(hint);
}

/** A start that is not ready yet says what it is waiting for every STARTUP_PROGRESS_SECONDS: never silently. */
function startupProgress(everyMs: number) {
  let step = 'checking DATA_DIR';
  const timer = setInterval(() => {
    process.stderr.write(`LeadFlow is still starting after ${Math.round(process.uptime())} s: ${step}\n`);
  }, everyMs);
  timer.unref();
  return {
    step: (s: string) => {
      step = s;
    },
    done: () => clearInterval(timer),
  };
}

/**
 * The modules a role needs, loaded while the database starts: a worker loads no HTTP server, REST API or dashboard, a
 * web process no job definitions (docs/performance.md, Start-up).
 */
async function loadModules(role: ProcessRole, config: Readonly<Config>) {
  const [context, seeding, server, jobs, metrics] = await Promise.all([
    import('./context.js'),
    import('../src/seed.js'),
    role === 'worker' ? null : import('./server.js'),
    role === 'web' ? null : import('../jobs/index.js'),
    config.metricsPort ? import('../http/metrics.js') : null,
  ]);
  return {
    createAppContext: context.createAppContext,
    seed: seeding.seed,
    loginsShown: seeding.loginsShown,
    loginHint: seeding.loginHint,
    startWebServer: server?.startWebServer,
    jobDefinitions: jobs?.jobDefinitions,
    startMetricsServer: metrics?.startMetricsServer,
  };
}

type Modules = Awaited<ReturnType<typeof loadModules>>;

/** What a shutdown has to stop; filled in as start-up goes. */
interface Running {
  ctx: ProcessContext | null;
  web: WebServer | null;
  metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null;
  /** Start-up has finished: readiness may answer 200. */
  started: boolean;
}

/**
 * SIGTERM or SIGINT: a seed still running rolls back, in-flight requests finish while running jobs get their grace,
 * held jobs go back to the queue, then the pools and (embedded mode, if this process runs it) PostgreSQL stop. A
 * requested stop writes info lines only, the last one "stopped"; a watchdog forces exit 1 after 10 s.
 */
function shutdownOf(running: Running) {
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const { ctx } = running;
    // Before the context exists, start-up itself sees `stopping` once it has one and stops there.
    if (!ctx) return;
    ctx.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      ctx.logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      seedAbort.abort();
      await within(seeding, 3000);
      await Promise.all([running.web?.close(), running.metricsServer?.close(), ctx.jobs.close({ graceMs: 5000 })]);
      await ctx.close();
      ctx.logger.info({ signal, after_ms: Math.round(performance.now() - stopAt) }, 'stopped');
      process.exit(0);
    } catch (err) {
      ctx.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  let stopAt = 0;
  const on = (signal: string) => () => {
    stopAt ||= performance.now();
    void shutdown(signal);
  };
  process.on('SIGTERM', on('SIGTERM'));
  process.on('SIGINT', on('SIGINT'));
  return shutdown;
}

async function main(): Promise<void> {
  const role = parseRole(process.argv.slice(2));
  const config = loadConfig();
  const progress = startupProgress(config.startupProgressMs);
  // Exports, uploads and mails written by an earlier version become the service user's only (0700 / 0600).
  lockDownDataDir(config.dataDir);
  const running: Running = { ctx: null, web: null, metricsServer: null, started: false };
  const shutdown = shutdownOf(running);

  const logger = createLogger(config.logLevel);
  // PostgreSQL (embedded mode) starts in a process of its own while this one loads its modules.
  const embedded = config.databaseUrl
    ? undefined
    : startEmbedded(config.dataDir, undefined, (m, level) => (level ? logger.info(m) : logger.debug({ pg: m })));
  embedded?.catch(() => {}); // awaited, and a failure reported, by createAppContext
  progress.step('loading the modules');
  const modules = await loadModules(role, config);
  const ctx = await modules.createAppContext(config, { logger, onStep: progress.step, embedded });
  running.ctx = ctx;
  if (stopping) {
    stopping = false;
    return shutdown('signal during start-up');
  }
  // Listening first (readiness answers 503 until start-up has finished), while the seed hashes its passwords.
  progress.step('starting the web server');
  const started = () => running.started && !stopping;
  if (modules.startWebServer) running.web = await modules.startWebServer(ctx, undefined, undefined, { started });
  if (modules.startMetricsServer) running.metricsServer = await modules.startMetricsServer(ctx, config.metricsPort!);
  progress.step('seeding (first start)');
  await firstStart(ctx, modules, config.appUrl);
  progress.step('starting the worker');
  if (modules.jobDefinitions && !stopping) await ctx.jobs.startWorker(ctx, modules.jobDefinitions);
  progress.done();
  if (stopping) return;
  running.started = true;
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PostgreSQL (${config.dataDir}/pg)`;
  process.stdout.write(
    `LeadFlow ${role === 'worker' ? 'worker' : `listening on http://${config.host}:${running.web!.port}`} ` +
      `(role ${role}, ${where}, ready in ${Math.round(process.uptime() * 1000)} ms)\n`,
  );
}

/** A start-up failure is one line on stderr and exit code 1; stack traces are for bugs, not for a taken port. */
function failStart(err: unknown): void {
  // A shutdown that began during start-up closes what start-up was using; it exits by itself.
  if (stopping) {
    if ((err as Error)?.name === 'SeedInterrupted')
      process.stdout.write('First start stopped before its seed committed: nothing was kept, the next start seeds.\n');
    return;
  }
  const message = err instanceof ConfigError ? err.message : `Start failed: ${(err as Error)?.message ?? String(err)}`;
  process.stderr.write(message.replace(/\s*\n\s*/g, ' ').trim() + '\n');
  process.exit(1);
}

// Until ready, an error thrown outside the start-up chain (a child process that cannot be spawned) fails the start too.
process.on('uncaughtException', failStart);
main()
  .then(() => process.off('uncaughtException', failStart))
  .catch(failStart);
