import type { startMetricsServer } from '../http/metrics.js';
import type { WebServer } from './server.js';
import type { ProcessContext } from './context.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { startEmbedded } from '../src/db/embedded.js';
import { createLogger } from '../src/logger.js';
import { lockDownDataDir } from '../src/private-files.js';
import type { seed } from '../src/seed.js';

const ROLES = ['web', 'worker', 'all'] as const;
type ProcessRole = (typeof ROLES)[number];

function parseRole(argv: string[]): ProcessRole {
  const i = argv.indexOf('--role');
  const value = i >= 0 ? argv[i + 1] : (argv.find((a) => a.startsWith('--role='))?.slice(7) ?? 'all');
  if (!ROLES.includes(value as ProcessRole))
    throw new ConfigError(`Invalid --role "${value}": expected web, worker or all`);
  return value as ProcessRole;
}

function printSeed(result: Awaited<ReturnType<typeof seed>>, appUrl: string): void {
  if (!result.created) return;
  const lines = [
    '',
    'First start: demo data created. These passwords are shown once.',
    `  Admin panel:  ${appUrl}/admin`,
    `  Admin:        ${result.admin!.email} / ${result.admin!.password ?? '(ADMIN_PASSWORD)'}`,
    `  Demo seller:  ${result.demo!.seller.email} / ${result.demo!.seller.password}`,
    `  Demo agent:   ${result.demo!.agent.email} / ${result.demo!.agent.password}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

let stopping = false;

/** How often a start that is not ready yet says what it is waiting for: start-up never hangs silently. */
const STILL_STARTING_EVERY_MS = 10_000;

function startupProgress() {
  let step = 'reading the configuration';
  const timer = setInterval(() => {
    process.stderr.write(`LeadFlow is still starting after ${Math.round(process.uptime())} s: ${step}\n`);
  }, STILL_STARTING_EVERY_MS);
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
    startWebServer: server?.startWebServer,
    jobDefinitions: jobs?.jobDefinitions,
    startMetricsServer: metrics?.startMetricsServer,
  };
}

async function main(): Promise<void> {
  const progress = startupProgress();
  const role = parseRole(process.argv.slice(2));
  const config = loadConfig();
  // Exports, uploads and mails written by an earlier version become the service user's only (0700 / 0600).
  lockDownDataDir(config.dataDir);
  let ctx: ProcessContext | null = null;
  let web: WebServer | null = null;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Before the context exists, start-up itself sees `stopping` once it has one and stops there.
    if (!ctx) return;
    ctx.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      ctx!.logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      // In-flight requests finish while running jobs get their grace; held jobs go back to the queue, then the
      // pools close.
      await Promise.all([web?.close(), metricsServer?.close(), ctx.jobs.close({ graceMs: 5000 })]);
      await ctx.close();
      process.exit(0);
    } catch (err) {
      ctx.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const logger = createLogger(config.logLevel);
  // PostgreSQL (embedded mode) starts in a process of its own while this one loads its modules.
  const embedded = config.databaseUrl
    ? undefined
    : startEmbedded(config.dataDir, undefined, (m, level) => (level ? logger.info(m) : logger.debug({ pg: m })));
  embedded?.catch(() => {}); // awaited, and a failure reported, by createAppContext
  progress.step('loading the modules');
  const modules = await loadModules(role, config);
  ctx = await modules.createAppContext(config, { logger, onStep: progress.step, embedded });
  if (stopping) {
    stopping = false;
    return shutdown('signal during start-up');
  }
  // Listening first: readiness needs only the database and the job store, and the seed (argon2 hashes) takes a moment.
  progress.step('starting the web server');
  if (modules.startWebServer) web = await modules.startWebServer(ctx);
  if (modules.startMetricsServer) metricsServer = await modules.startMetricsServer(ctx, config.metricsPort!);
  progress.step('seeding (first start)');
  const seeded = await modules.seed(ctx);
  progress.step('starting the worker');
  if (modules.jobDefinitions) await ctx.jobs.startWorker(ctx, modules.jobDefinitions);
  progress.done();
  if (stopping) return;
  printSeed(seeded, config.appUrl);
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PostgreSQL (${config.dataDir}/pg)`;
  process.stdout.write(
    `LeadFlow ${role === 'worker' ? 'worker' : `listening on http://${config.host}:${web!.port}`} ` +
      `(role ${role}, ${where}, ready in ${Math.round(process.uptime() * 1000)} ms)\n`,
  );
}

/** A start-up failure is one line on stderr and exit code 1; stack traces are for bugs, not for a taken port. */
function failStart(err: unknown): void {
  // A shutdown that began during start-up closes what start-up was using; it exits by itself.
  if (stopping) return;
  const message = err instanceof ConfigError ? err.message : `Start failed: ${(err as Error)?.message ?? String(err)}`;
  process.stderr.write(message.replace(/\s*\n\s*/g, ' ').trim() + '\n');
  process.exit(1);
}

// Until ready, an error thrown outside the start-up chain (a child process that cannot be spawned) fails the start too.
process.on('uncaughtException', failStart);
main()
  .then(() => process.off('uncaughtException', failStart))
  .catch(failStart);
