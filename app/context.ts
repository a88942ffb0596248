import { createJobSystem, type JobSystem } from '../jobs/agenda.js';
import type { Config } from '../src/config.js';
import type { AppContext } from '../src/app-context.js';
import type { Core } from '../src/context.js';
import type { EmbeddedServer } from '../src/db/embedded.js';
import { openDatabase, type Database } from '../src/db/index.js';
import { migrateUp } from '../src/db/migrator.js';
import { createNotifications } from '../src/db/notifications.js';
import { initModels } from '../src/models.js';
import { createLogger, type Logger } from '../src/logger.js';
import { createMetrics } from '../src/metrics.js';
import { createServices } from '../src/services.js';

/** The context app/ builds: entry points see an AppContext; start-up also starts the worker of its job system. */
export type ProcessContext = AppContext & { jobs: JobSystem };
export type { AppContext };

/**
 * Opens the database (embedded or DATABASE_URL), applies migrations, builds services and the job queue.
 * The same context serves the web role, the worker role, the CLI and the tests.
 */
export async function createAppContext(
  config: Readonly<Config>,
  opts: {
    logger?: Logger;
    migrate?: boolean;
    database?: string;
    onStep?: (step: string) => void;
    /** The embedded server, when start-up began starting it already (app/main.ts). */
    embedded?: Promise<EmbeddedServer>;
  } = {},
): Promise<ProcessContext> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const step = opts.onStep ?? (() => {});
  step(config.databaseUrl ? 'connecting to DATABASE_URL' : `starting the embedded database (${config.dataDir}/pg)`);
  const db: Database = await openDatabase(config, {
    database: opts.database,
    log: (m, level) => (level ? logger.info(m) : logger.debug({ pg: m })),
    embedded: opts.embedded,
  });
  try {
    step('applying migrations (another process holding the migration lock is waited for)');
    if (opts.migrate !== false) await migrateUp(db.sequelize, db.url);
    const models = initModels(db.sequelize);
    step(`connecting the job store (${config.agendaMongoUrl ? 'AGENDA_MONGO_URL' : 'PostgreSQL'})`);
    const metrics = createMetrics();
    const jobs = await createJobSystem(config, db.url, logger, metrics);
    metrics.watch({ sequelize: db.sequelize, queueDepth: jobs.queueDepth });
    const notifications = createNotifications(db.url, logger);
    const core: Core = { config, db, models, logger, metrics, queue: jobs.queue, notifications };
    const services = createServices(core);
    return {
      ...core,
      services,
      jobs,
      async close() {
        await Promise.all([jobs.close(), notifications.close()]);
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
