import Joi from 'joi';
import { getCountries } from 'libphonenumber-js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { JOBS_ENVIRONMENT, jobsConfig, type JobsConfig } from './config-jobs.js';
import { QUEUE_ENVIRONMENT, queueConfig, type QueueConfig } from './config-queue.js';
import { FORM_ENVIRONMENT, formConfig, type FormConfig } from './config-forms.js';

/** Crash points a test may switch on with FAULT_INJECTION (src/faults.ts). */
export const FAULT_POINTS = ['exit-after-push-commit'] as const;

const MONTH_HOURS = 720;
const IMPORT_MAX_BYTES = 20 * 1024 * 1024;
const SHARED_STRINGS_MAX_BYTES = 64 * 1024 * 1024;

/** Thrown when the environment is invalid; main prints its message as one line and exits non-zero. */
export class ConfigError extends Error {}

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  HOST: Joi.string().default('0.0.0.0'),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  APP_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATABASE_POOL_MAX: Joi.number().integer().min(2).max(200).default(10),
  DATA_DIR: Joi.string().default('./data'),
  SESSION_SECRET: Joi.string().min(32),
  SESSION_IDLE_MINUTES: Joi.number().integer().min(1).default(120),
  SESSION_ABSOLUTE_HOURS: Joi.number().integer().min(1).default(12),
  TRUST_PROXY: Joi.boolean().truthy('1').falsy('0').default(false),
  ADMIN_EMAIL: Joi.string().email({ tlds: false }).default('admin@example.com'),
  ADMIN_PASSWORD: Joi.string().min(8),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  AGENDA_MONGO_URL: Joi.string().uri({ scheme: ['mongodb', 'mongodb+srv'] }),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
  RATE_LIMIT_ACCOUNT_PER_MINUTE: Joi.number().integer().min(1).default(180),
  SESSION_RATE_PER_MINUTE: Joi.number().integer().min(1).default(600),
  ACCOUNT_SETTINGS_PER_MINUTE: Joi.number().integer().min(1).default(20),
  API_TOKENS_PER_USER: Joi.number().integer().min(1).default(20),
  LOGIN_THROTTLE_PER_MINUTE: Joi.number().integer().min(1).default(5),
  LOGIN_FAILURES_PER_IP: Joi.number().integer().min(1).default(20),
  RESET_REQUESTS_PER_IP: Joi.number().integer().min(1).default(10),
  RESET_MAIL_INTERVAL_MINUTES: Joi.number().integer().min(0).default(5),
  CALLBACK_RATE_PER_MINUTE: Joi.number().integer().min(1).default(120),
  DUPLICATE_WINDOW_DAYS: Joi.number().integer().min(0).default(30),
  DEFAULT_COUNTRY: Joi.string()
    .uppercase()
    .valid(...getCountries())
    .default('MA')
    .messages({ 'any.only': 'must be an ISO 3166 alpha-2 country code known to libphonenumber (e.g. MA, FR)' }),
  LEAD_PARENT_CHECKS: Joi.string().valid('batch', 'row').default('batch'),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  MAIL_FROM: Joi.string().default('LeadFlow <no-reply@leadflow.local>'),
  IMPORT_MAX_BYTES: Joi.number().integer().min(1024).default(IMPORT_MAX_BYTES),
  IMPORT_MAX_ROWS: Joi.number().integer().min(1).default(200_000),
  IMPORT_MAX_SHARED_STRINGS_BYTES: Joi.number().integer().min(1024).default(SHARED_STRINGS_MAX_BYTES),
  EXPORT_TTL_DAYS: Joi.number().integer().min(1).default(7),
  SHIPPING_ALLOW_PRIVATE_URLS: Joi.boolean().truthy('1').falsy('0').default(false),
  WEBHOOK_ALLOW_PRIVATE_URLS: Joi.boolean().truthy('1').falsy('0').default(false),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(10_000),
  WEBHOOK_DISABLE_AFTER_HOURS: Joi.number().min(0.001).max(MONTH_HOURS).default(24),
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(1).max(64).default(8),
  WEBHOOK_LOG_DAYS: Joi.number().integer().min(1).default(30),
  WEBHOOK_ACCOUNT_IN_FLIGHT: Joi.number().integer().min(1).max(64).default(4),
  WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: Joi.number().integer().min(1).max(1000).default(10),
  WEBHOOK_SECRET_GRACE_HOURS: Joi.number().min(0).max(MONTH_HOURS).default(24),
  PASSWORD_HASH_COST: Joi.string().valid('normal', 'fast').default('normal'),
  METRICS_TOKEN: Joi.string()
    .min(16)
    .pattern(/^[\x21-\x7e]+$/, 'printable characters without spaces'),
  METRICS_PORT: Joi.number().integer().min(1).max(65535),
  METRICS_HOST: Joi.string().default('127.0.0.1'),
  ...QUEUE_ENVIRONMENT,
  ...JOBS_ENVIRONMENT,
  ...FORM_ENVIRONMENT,
  SEED_DEMO: Joi.boolean().truthy('1').falsy('0'),
  TEST_SEED_PAUSE_MS: Joi.number().integer().min(0).max(600_000).default(0),
  STARTUP_PROGRESS_SECONDS: Joi.number().integer().min(1).max(3600).default(10),
  // Test-only crash points (src/faults.ts); refused outside NODE_ENV=test.
  FAULT_INJECTION: Joi.string().valid(...FAULT_POINTS),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
}).unknown(true);

export interface Config extends JobsConfig {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  appUrl: string;
  databaseUrl: string | null;
  databasePoolMax: number;
  dataDir: string;
  sessionSecret: string;
  sessionIdleMinutes: number;
  sessionAbsoluteHours: number;
  trustProxy: boolean;
  adminEmail: string;
  adminPassword: string | null;
  redisUrl: string | null;
  agendaMongoUrl: string | null;
  rateLimitPerMinute: number;
  /** REST requests per account and minute, all its tokens together (the per-token figure is the spec's). */
  rateLimitAccountPerMinute: number;
  /** Dashboard and panel API requests per signed-in user (per client IP before login) and minute. */
  sessionRatePerMinute: number;
  /** Saves of one account's settings per minute, whoever saves (src/accounts/settings-saves.repository.ts). */
  accountSettingsPerMinute: number;
  /** Live (unexpired) API tokens one user may hold. */
  apiTokensPerUser: number;
  loginThrottlePerMinute: number;
  /** Failed logins per client IP and minute, whatever the emails. */
  loginFailuresPerIp: number;
  /** Password reset requests one client IP may send per 15 minutes. */
  resetRequestsPerIp: number;
  /** At most one reset mail per email within this many minutes (0: no interval). */
  resetMailIntervalMinutes: number;
  duplicateWindowDays: number;
  /** Country of the national phone numbers of a new account (accounts.phone_country), ISO 3166 alpha-2. */
  defaultCountry: string;
  leadParentChecks: 'batch' | 'row';
  smtpUrl: string | null;
  mailFrom: string;
  importMaxBytes: number;
  importMaxRows: number;
  /** An xlsx's shared strings are held in memory whole while it is read: their expanded size is capped. */
  importMaxSharedStringsBytes: number;
  exportTtlDays: number;
  /** Carrier endpoints may be loopback or private addresses (tests, carriers on the operator's own network). */
  shippingAllowPrivateUrls: boolean;
  /** Webhook endpoints may be loopback or private addresses (tests, receivers on the operator's own network). */
  webhookAllowPrivateUrls: boolean;
  /** How long one webhook POST may take, connection and answer. */
  webhookTimeoutMs: number;
  /** An endpoint whose deliveries have failed for this long is disabled (docs/webhooks.md "Retries"). */
  webhookDisableAfterMs: number;
  /** Webhook POSTs one worker sends at once (each to a different endpoint or sequence). */
  webhookConcurrency: number;
  /** Delivered and failed deliveries are kept this many days, then the daily clean-up removes them. */
  webhookLogDays: number;
  /** Webhook attempts one account may have in flight at once, across all workers (docs/webhooks.md "Fairness"). */
  webhookAccountInFlight: number;
  /** Webhook endpoints one account may have. */
  webhookMaxEndpointsPerAccount: number;
  /** After a rotation, deliveries are signed with the old secret too for this long (docs/webhooks.md "Rotation"). */
  webhookSecretGraceMs: number;
  /** Carrier callbacks per client address and minute. */
  callbackRatePerMinute: number;
  passwordHashCost: 'normal' | 'fast';
  /** Bearer token for `/metrics` on the main port (unset: not served there). */
  metricsToken: string | null;
  /** A port of its own serving only `/metrics` (any role, the worker included). */
  metricsPort: number | null;
  /** Where METRICS_PORT listens: loopback unless the operator opens it (then with METRICS_TOKEN). */
  metricsHost: string;
  logLevel: string;
  /** The work queue's claim time, fresh window and no_answer retry time (src/config-queue.ts). */
  queue: QueueConfig;
  /** The landing-page form endpoint's budgets (src/config-forms.ts). */
  forms: FormConfig;
  /** The first start creates the demo account with sample data (SEED_DEMO; default: not in production). */
  seedDemo: boolean;
  /** Tests only (NODE_ENV=test): the first-start seed pauses this long midway, so a test can stop it there. */
  testSeedPauseMs: number;
  /** A start not ready yet prints what it waits for this often (STARTUP_PROGRESS_SECONDS). */
  startupProgressMs: number;
  /** A crash point switched on by a test (NODE_ENV=test only), or null. */
  faultInjection: (typeof FAULT_POINTS)[number] | null;
}

/**
 * DEFAULT_COUNTRY alone, for the migration that fills `accounts.phone_country` (it runs before, and without, the
 * whole configuration); invalid is said as loadConfig says it.
 */
export function defaultCountryOf(env: NodeJS.ProcessEnv = process.env): string {
  const { value, error } = schema.extract('DEFAULT_COUNTRY').validate(env.DEFAULT_COUNTRY);
  if (error)
    throw new ConfigError(`Invalid environment variable DEFAULT_COUNTRY: ${error.message.replace(/^"[^"]*" /, '')}`);
  return value;
}

/** Creates DATA_DIR when missing; a directory that cannot be written is said in one line, naming the variable. */
export function ensureDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(
      `Invalid environment variable DATA_DIR: cannot write ${dataDir} (${why}); set it to a writable directory`,
    );
  }
}

/** Development keeps one generated secret under DATA_DIR so sessions survive restarts. */
function devSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  ensureDataDir(dataDir);
  const secret = crypto.randomBytes(32).toString('hex');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** The request budgets and caps (docs/operations.md "Limits"). */
function budgets(v: Record<string, number>) {
  return {
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    rateLimitAccountPerMinute: v.RATE_LIMIT_ACCOUNT_PER_MINUTE,
    sessionRatePerMinute: v.SESSION_RATE_PER_MINUTE,
    accountSettingsPerMinute: v.ACCOUNT_SETTINGS_PER_MINUTE,
    apiTokensPerUser: v.API_TOKENS_PER_USER,
    loginThrottlePerMinute: v.LOGIN_THROTTLE_PER_MINUTE,
    loginFailuresPerIp: v.LOGIN_FAILURES_PER_IP,
    callbackRatePerMinute: v.CALLBACK_RATE_PER_MINUTE,
    forms: formConfig(v),
  };
}

/** What the first start creates: the demo account outside production unless SEED_DEMO says otherwise. */
function firstStart(v: Record<string, unknown>) {
  return {
    seedDemo: (v.SEED_DEMO as boolean | undefined) ?? v.NODE_ENV !== 'production',
    testSeedPauseMs: v.NODE_ENV === 'test' ? (v.TEST_SEED_PAUSE_MS as number) : 0,
    startupProgressMs: (v.STARTUP_PROGRESS_SECONDS as number) * 1000,
  };
}

/** How long finished things are kept (docs/operations.md): exports, webhook deliveries (jobs: src/config-jobs.ts). */
function retention(v: Record<string, number>) {
  return {
    exportTtlDays: v.EXPORT_TTL_DAYS,
    webhookLogDays: v.WEBHOOK_LOG_DAYS,
  };
}

/** FAULT_INJECTION, refused outside tests: a crash point must never be reachable in a real deployment. */
function faultPoint(v: { NODE_ENV: string; FAULT_INJECTION?: Config['faultInjection'] }) {
  if (v.FAULT_INJECTION && v.NODE_ENV !== 'test')
    throw new ConfigError('Invalid environment variable FAULT_INJECTION: only tests (NODE_ENV=test) may set it');
  return v.FAULT_INJECTION ?? null;
}

/** Validates the environment once; nothing else in the code base reads process.env. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const { value: v, error } = schema.validate(env, { abortEarly: true, convert: true });
  if (error) {
    const key = String(error.details[0].path[0] ?? '');
    throw new ConfigError(`Invalid environment variable ${key}: ${error.details[0].message.replace(/^"[^"]*" /, '')}`);
  }
  if (v.NODE_ENV === 'production' && !v.SESSION_SECRET) {
    throw new ConfigError(
      'Invalid environment variable SESSION_SECRET: required in production (at least 32 characters)',
    );
  }
  const dataDir = path.resolve(v.DATA_DIR);
  return Object.freeze({
    env: v.NODE_ENV,
    host: v.HOST,
    port: v.PORT,
    appUrl: (v.APP_URL ?? `http://localhost:${v.PORT}`).replace(/\/$/, ''),
    databaseUrl: v.DATABASE_URL ?? null,
    databasePoolMax: v.DATABASE_POOL_MAX,
    dataDir,
    sessionSecret: v.SESSION_SECRET ?? devSecret(dataDir),
    sessionIdleMinutes: v.SESSION_IDLE_MINUTES,
    sessionAbsoluteHours: v.SESSION_ABSOLUTE_HOURS,
    trustProxy: v.TRUST_PROXY,
    adminEmail: v.ADMIN_EMAIL.toLowerCase(),
    adminPassword: v.ADMIN_PASSWORD ?? null,
    redisUrl: v.REDIS_URL ?? null,
    agendaMongoUrl: v.AGENDA_MONGO_URL ?? null,
    ...budgets(v),
    ...retention(v),
    ...jobsConfig(v),
    resetRequestsPerIp: v.RESET_REQUESTS_PER_IP,
    resetMailIntervalMinutes: v.RESET_MAIL_INTERVAL_MINUTES,
    duplicateWindowDays: v.DUPLICATE_WINDOW_DAYS,
    defaultCountry: v.DEFAULT_COUNTRY,
    leadParentChecks: v.LEAD_PARENT_CHECKS,
    smtpUrl: v.SMTP_URL ?? null,
    mailFrom: v.MAIL_FROM,
    importMaxBytes: v.IMPORT_MAX_BYTES,
    importMaxRows: v.IMPORT_MAX_ROWS,
    importMaxSharedStringsBytes: v.IMPORT_MAX_SHARED_STRINGS_BYTES,
    shippingAllowPrivateUrls: v.SHIPPING_ALLOW_PRIVATE_URLS,
    webhookAllowPrivateUrls: v.WEBHOOK_ALLOW_PRIVATE_URLS,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    webhookDisableAfterMs: Math.round(v.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000),
    webhookConcurrency: v.WEBHOOK_CONCURRENCY,
    webhookAccountInFlight: v.WEBHOOK_ACCOUNT_IN_FLIGHT,
    webhookMaxEndpointsPerAccount: v.WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT,
    webhookSecretGraceMs: Math.round(v.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000),
    metricsToken: v.METRICS_TOKEN ?? null,
    metricsPort: v.METRICS_PORT ?? null,
    metricsHost: v.METRICS_HOST,
    passwordHashCost: v.PASSWORD_HASH_COST,
    logLevel: v.LOG_LEVEL,
    queue: queueConfig(v),
    ...firstStart(v),
    faultInjection: faultPoint(v),
  });
}
