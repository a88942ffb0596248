import { KPI_CHANNEL } from '../src/stats/kpi-zones.repository.js';
import type { JobDefinition } from './job.js';

/**
 * Folds the writes of the last minute into the KPI dashboard's daily rollup (src/stats/kpi.service.ts): the days
 * they touched are recomputed. Idempotent, and safe on several workers at once (the fold takes an advisory lock).
 */
export const foldKpiJob: JobDefinition = {
  name: 'fold-kpi',
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 minute',
  handler: async (ctx) => {
    await ctx.services.kpi.fold();
  },
};

/**
 * Recomputes the KPI days of the accounts whose zone changed (src/accounts/account.service.ts, saveZone), woken by the
 * change; every minute too, for a wake-up missed. Each account's rebuild holds only that account's lock: the fold goes
 * on for every other account meanwhile (migration 20261207000000).
 */
export const rebuildKpiZonesJob: JobDefinition = {
  name: 'rebuild-kpi-zones',
  priority: 'NORMAL',
  concurrency: () => 1,
  every: '1 minute',
  wakeOn: KPI_CHANNEL,
  handler: async (ctx) => {
    await ctx.services.kpi.rebuildZones();
  },
};
