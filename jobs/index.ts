import type { JobDefinition } from './job.js';
import { cleanupJobsJob } from './job-store.job.js';
import { cleanupIdempotencyKeysJob } from './idempotency.job.js';
import { intakeRetentionJob } from './intake-retention.job.js';
import { foldKpiJob, rebuildKpiZonesJob } from './kpi.job.js';
import { passwordResetJob } from './password-reset.job.js';
import { pushOrderJob } from './push-order.job.js';
import { checkRowCountsJob, foldRowCountsJob } from './row-counts.job.js';
import { analyzeTablesJob } from './table-statistics.job.js';
import { followStockJob, importStockCountJob } from './stock.job.js';
import { cleanupExportsJob, exportLeadsJob, importLeadsJob } from './transfers.job.js';
import { cleanupWebhooksJob, deliverWebhooksJob } from './webhooks.job.js';

/** Every job kind the worker runs; each feature adds its definition here. */
export const jobDefinitions: JobDefinition<any>[] = [
  pushOrderJob,
  importLeadsJob,
  importStockCountJob,
  followStockJob,
  exportLeadsJob,
  cleanupExportsJob,
  foldRowCountsJob,
  checkRowCountsJob,
  foldKpiJob,
  rebuildKpiZonesJob,
  deliverWebhooksJob,
  cleanupWebhooksJob,
  passwordResetJob,
  cleanupJobsJob,
  analyzeTablesJob,
  cleanupIdempotencyKeysJob,
  intakeRetentionJob,
];
