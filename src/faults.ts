import type { Config } from './config.js';

/**
 * A crash point: when a test switched it on (FAULT_INJECTION, accepted with NODE_ENV=test only), the process dies here
 * at once with SIGKILL, as a crash or a power cut would: no shutdown, no pending promise settles. Elsewhere a no-op.
 */
export function crashPoint(config: Readonly<Config>, point: NonNullable<Config['faultInjection']>): void {
  if (config.faultInjection !== point) return;
  process.kill(process.pid, 'SIGKILL');
  process.exit(137); // not reached: SIGKILL is not caught
}
