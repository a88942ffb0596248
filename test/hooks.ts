import fs from 'node:fs';
import pg from 'pg';
import { createAppContext, type AppContext } from '../app/context.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { takeViolations } from './openapi-contract.js';

/**
 * One context for the whole run: the embedded server under ./data/test (database leadflow_test), or DATABASE_URL.
 * The schema is dropped and migrated from zero at the start, so every run also proves the migrations.
 */
let ctx: AppContext | null = null;

export function testConfig(overrides: Partial<Record<string, string>> = {}): Readonly<Config> {
  return loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATA_DIR: process.env.TEST_DATA_DIR ?? './data/test',
    PASSWORD_HASH_COST: 'fast',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    SESSION_SECRET: 'test-secret-test-secret-test-secret-0123',
    // The suite's carriers listen on 127.0.0.1; the refusal of private addresses has its own tests.
    SHIPPING_ALLOW_PRIVATE_URLS: 'true',
    // The webhook receivers of the tests listen on 127.0.0.1 too (test/integration/webhooks-ssrf.test.ts refuses them).
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // Times configured short (docs/testing.md): an import's ANALYZE does not wait out 19 × the previous one's time.
    ANALYZE_TIME_SHARE_PERCENT: '50',
    ...overrides,
  });
}

export function getCtx(): AppContext {
  if (!ctx) throw new Error('test context not ready: test/hooks.ts runs first');
  return ctx;
}

async function resetSchema(config: Readonly<Config>): Promise<void> {
  const db = await openDatabase(config, { database: 'leadflow_test' });
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
  await client.end();
  await db.close();
}

/** Fails the running test (or hook) when a test server answered against its OpenAPI document meanwhile. */
function answersAsDocumented(): void {
  const broken = takeViolations();
  if (broken.length)
    throw new Error(`REST answers not as the OpenAPI document says (test/openapi-contract.ts):\n${broken.join('\n')}`);
}

export const mochaHooks = {
  afterEach: answersAsDocumented,
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    // Tests start embedded servers under ./data (signals, compiled): as root their server runs as "postgres", which must
    // enter ./data even when a DATABASE_URL run made it first (private directories are created 0700).
    fs.mkdirSync('data', { recursive: true });
    if (process.getuid?.() === 0) fs.chmodSync('data', 0o755);
    const config = testConfig();
    await resetSchema(config);
    ctx = await createAppContext(config, { database: 'leadflow_test' });
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    answersAsDocumented();
    await ctx?.close();
    ctx = null;
  },
};
