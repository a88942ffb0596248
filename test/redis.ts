import { Redis } from 'ioredis';
import { startTestServer } from './helpers.js';
import { closeRedisClients } from '../http/rate-limit.js';
import type { AppContext } from '../src/app-context.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Skips the running test with a message when no Redis answers at TEST_REDIS_URL; otherwise deletes `keys`, so the
 * counters a test reads start from zero whatever an earlier run left.
 */
export async function redisOrSkip(test: Mocha.Context, ...keys: string[]): Promise<string> {
  const probe = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
  } catch {
    console.log(`      (skipped: no Redis at ${TEST_REDIS_URL})`);
    test.skip();
  }
  if (keys.length > 0) await probe.del(...keys);
  await probe.quit();
  return TEST_REDIS_URL;
}

/** Two web processes' worth of the app (two servers) drawing on one Redis; `close` ends both and the connections. */
export async function twoWebProcesses(ctx: AppContext): Promise<{ urls: [string, string]; close(): Promise<void> }> {
  const a = await startTestServer(ctx);
  const b = await startTestServer(ctx);
  return {
    urls: [a.url, b.url],
    async close() {
      await a.close();
      await b.close();
      await closeRedisClients();
    },
  };
}
