import crypto from 'node:crypto';
import type { Core } from '../context.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import { postToPublicUrl } from '../outbound/public-http.js';
import { recordAttempt, type Attempt, type ClaimedDelivery, type ClaimLimits } from './webhook-claim.js';
import { fillSlots, POLL_MS, Slots, type Schedule } from './webhook-slots.js';
import { withCustomer } from './webhook-customer.js';
import { fanOutRound } from './webhook-fanout.js';
import { disableIfFailingSince, sellerEmails } from './webhook.repository.js';

/**
 * Seconds to wait after the n-th failed attempt (n = 1, 2, …): 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about 28 h
 * in all over 8 attempts; after the last the delivery is `failed`. An endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS
 * (24 h) is disabled before then.
 */
export const BACKOFF_SECONDS = [60, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** How long one run of the job keeps taking deliveries before it hands over to the next run. */
const RUN_BUDGET_MS = 60_000;

/** The body's bytes as signed and sent: `{id, event, created_at, account_id, data}`. */
export function deliveryBody(d: Pick<ClaimedDelivery, 'event_id' | 'event' | 'created_at' | 'account_id' | 'payload'>) {
  return JSON.stringify({
    id: d.event_id,
    event: d.event,
    created_at: new Date(d.created_at).toISOString(),
    account_id: d.account_id,
    data: d.payload,
  });
}

/** The HMAC key of a `whsec_<base64>` secret: the decoded bytes (Standard Webhooks). */
export const secretKey = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64');

/**
 * The webhook-signature header of Standard Webhooks (docs/webhooks.md): `v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">` for each secret, space-separated (two during a rotation's grace period).
 */
export function signDelivery(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const sign = (secret: string) =>
    crypto.createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return secrets.map((secret) => `v1,${sign(secret)}`).join(' ');
}

/** Sends one delivery; never throws: the outcome is what the log records. */
async function attempt(core: Core, d: ClaimedDelivery): Promise<Attempt> {
  const body = deliveryBody(d);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'LeadFlow-Webhooks/1',
    'webhook-id': d.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signDelivery(d.secrets, d.event_id, timestamp, body),
  };
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const retryAt = () => {
    const wait = BACKOFF_SECONDS[d.attempts];
    return wait === undefined ? null : new Date(Date.now() + wait * 1000);
  };
  try {
    const { webhookTimeoutMs, webhookAllowPrivateUrls } = core.config;
    const answer = await postToPublicUrl(d.url, headers, body, webhookTimeoutMs, webhookAllowPrivateUrls);
    const ok = answer.status >= 200 && answer.status < 300;
    const error = ok ? null : `HTTP ${answer.status}${answer.body ? `: ${answer.body.slice(0, 200)}` : ''}`;
    return { ok, status: answer.status, durationMs: elapsed(), error, nextTryAt: ok ? null : retryAt() };
  } catch (err) {
    const message = (err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message;
    return { ok: false, status: null, durationMs: elapsed(), error: message, nextTryAt: retryAt() };
  }
}

/** Disables an endpoint failing for longer than WEBHOOK_DISABLE_AFTER_HOURS and tells the account's sellers. */
async function disableIfFailingTooLong(core: Core, mailer: Mailer, endpointId: number): Promise<void> {
  const since = new Date(Date.now() - core.config.webhookDisableAfterMs);
  const hours = Math.round(core.config.webhookDisableAfterMs / 360_000) / 10;
  const reason = `Every delivery failed for ${hours} hours.`;
  const disabled = await disableIfFailingSince(core.db.sequelize, endpointId, since, reason);
  if (!disabled) return;
  core.logger.warn({ account_id: disabled.account_id, endpoint_id: endpointId }, 'webhook endpoint disabled');
  const text = [
    `The webhook endpoint ${disabled.url} (id ${endpointId}) has been disabled:`,
    `every delivery to it failed since ${disabled.failing_since.toISOString()}.`,
    'Its pending deliveries are kept. Fix the receiver, then turn the endpoint on again (panel, dashboard or API):',
    'the deliveries waiting for it are then sent, in order.',
  ].join('\n');
  for (const to of await sellerEmails(core.db.sequelize, disabled.account_id)) {
    await mailer.send({ to, subject: 'LeadFlow: a webhook endpoint was disabled', text }).catch((err: Error) => {
      core.logger.warn({ err: err.message, endpoint_id: endpointId }, 'could not mail about a disabled endpoint');
    });
  }
}

/**
 * Sends one claimed delivery, with the customer record of its phone as of now (webhook-customer.ts), and records the
 * outcome (and disables an endpoint failing for too long).
 */
async function send(core: Core, mailer: Mailer, d: ClaimedDelivery): Promise<void> {
  const outcome = await attempt(core, { ...d, payload: await withCustomer(core, d) });
  await recordAttempt(core.db.sequelize, d, outcome);
  if (!outcome.ok) await disableIfFailingTooLong(core, mailer, d.endpoint_id);
}

function limitsOf(core: Core): ClaimLimits {
  const { webhookConcurrency, webhookAccountInFlight, webhookTimeoutMs } = core.config;
  return {
    holdMs: webhookTimeoutMs + 30_000,
    // half the slots at most for one endpoint, and no more than its account may hold
    perEndpoint: Math.max(1, Math.min(Math.floor(webhookConcurrency / 2), webhookAccountInFlight)),
    perAccount: webhookAccountInFlight,
  };
}

/**
 * Fans new events out to their endpoints and sends every due delivery that heads its sequence, WEBHOOK_CONCURRENCY at
 * a time (never two of one sequence, at most WEBHOOK_ACCOUNT_IN_FLIGHT of one account across all workers), until none
 * is due and none is in flight, or a minute has passed. A slot freed by a send that ended, or new work while sends are
 * in flight, is filled at once: a run busy with one account's slow receiver keeps serving the others. Answers how many
 * attempts were made. Safe on several workers.
 */
export async function deliverDue(core: Core, mailer: Mailer = createMailer(core.config)): Promise<number> {
  const until = Date.now() + RUN_BUDGET_MS;
  const free = () => slots.free();
  const limits = limitsOf(core);
  const schedule: Schedule = { accounts: new Map(), readAt: 0 };
  const slots = new Slots(core, (d) => send(core, mailer, d), limits, schedule, until);
  let fannedAt = 0;
  while (!slots.failure && Date.now() < until) {
    const round = Date.now();
    slots.freed = false;
    try {
      // new events: looked for at each poll, and at once again while a round found some (a backlog)
      let fanned = 0;
      if (round - fannedAt >= POLL_MS) {
        fanned = await fanOutRound(core.db.sequelize);
        fannedAt = fanned > 0 ? 0 : round;
      }
      const claimed = await fillSlots(core, limits, free, schedule, (d) => slots.start(d));
      if (slots.inFlight.size === 0 && fanned === 0 && claimed === 0) {
        // the end, once a fresh read of the due work agrees
        if (schedule.readAt >= round && fannedAt >= round) break;
        schedule.readAt = 0;
        fannedAt = 0;
        continue;
      }
      if (fanned > 0) continue;
    } catch (err) {
      slots.failure ??= { err };
      break;
    }
    if (!slots.freed) await slots.pause(POLL_MS);
  }
  // every send ends before the run does (a run that failed must not leave sends going behind the next one)
  while (slots.inFlight.size) await Promise.allSettled([...slots.inFlight]);
  if (slots.failure) throw slots.failure.err;
  return slots.sent;
}
