import crypto from 'node:crypto';
import { accountExists } from '../chosen-account.js';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import { checkPublicUrl } from '../outbound/public-http.js';
import type { Page } from '../pagination.js';
import { accountScope, authorize, namedAccountScope, targetAccount } from '../policy.js';
import { validate } from '../validation.js';
import { fanOutAll, removeEventsBefore } from './webhook-fanout.js';
import { deliverDue } from './webhook-sender.js';
import type { WebhookDelivery, WebhookEndpoint } from './webhook-endpoint.model.js';
import {
  copyDelivery,
  deliveryPage,
  endpointPage,
  findDelivery,
  findEndpoint,
  createEndpointCapped,
  removeFinishedBefore,
  restartPending,
} from './webhook.repository.js';
import {
  deliveryListSchema,
  endpointCreateSchema,
  endpointListSchema,
  endpointUpdateSchema,
  type DeliveryListInput,
  type DeliveryView,
  type EndpointCreateInput,
  type EndpointListInput,
  type EndpointUpdateInput,
  type EndpointView,
} from './webhook.schemas.js';

export type { DeliveryView, EndpointView } from './webhook.schemas.js';
export { WEBHOOK_EVENTS, DELIVERY_STATES } from './webhook.schemas.js';

/** The jobs that send due deliveries and clean the log up (jobs/webhooks.job.ts). */
export const DELIVER_JOB = 'webhooks-deliver';
export const CLEANUP_JOB = 'webhooks-cleanup';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** An endpoint as every answer shows it: the secret never leaves the service but through create and rotateSecret. */
export function endpointView(e: WebhookEndpoint): EndpointView {
  return {
    id: e.id,
    account_id: e.account_id,
    url: e.url,
    events: e.events,
    active: e.active,
    failing_since: iso(e.failing_since),
    disabled_at: iso(e.disabled_at),
    disabled_reason: e.disabled_reason,
    rotation_grace_until:
      e.rotation_grace_until && e.rotation_grace_until > new Date() ? iso(e.rotation_grace_until) : null,
    created_at: iso(e.created_at) as string,
    updated_at: iso(e.updated_at) as string,
  };
}

export function deliveryView(d: WebhookDelivery): DeliveryView {
  return {
    id: Number(d.id),
    event_id: d.event_id,
    endpoint_id: d.endpoint_id,
    account_id: d.account_id,
    event: d.event,
    sequence_key: d.sequence_key,
    state: d.state,
    attempts: d.attempts,
    response_code: d.response_code,
    duration_ms: d.duration_ms,
    last_error: d.last_error,
    next_try_at: d.state === 'pending' ? iso(d.next_try_at) : null,
    delivered_at: iso(d.delivered_at),
    resent_from: d.resent_from === null ? null : Number(d.resent_from),
    created_at: iso(d.created_at) as string,
    payload: d.payload,
  };
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes, the HMAC key (Standard Webhooks). */
const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;

async function assertUrl(core: Core, url: string): Promise<void> {
  const problem = await checkPublicUrl(url, core.config.webhookAllowPrivateUrls, 'url');
  if (problem) throw ValidationError.single('url', problem);
}

/** The endpoint `id` in the actor's scope, or NotFoundError (unknown and another account's alike). */
async function endpointInScope(core: Core, actor: Actor, id: unknown): Promise<WebhookEndpoint> {
  const e = await findEndpoint(core.models, id, accountScope(actor).account_id);
  if (!e) throw new NotFoundError();
  return e;
}

/** One page of the account's endpoints, oldest first. */
async function list(core: Core, actor: Actor, query: unknown): Promise<Page<EndpointView>> {
  authorize(actor, 'viewAny', 'webhook');
  const q = validate<EndpointListInput>(endpointListSchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await endpointPage(core.models, accountId, q.page, q.per_page);
  return { data: rows.map(endpointView), total, page: q.page, perPage: q.per_page };
}

async function show(core: Core, actor: Actor, id: unknown): Promise<EndpointView> {
  authorize(actor, 'view', 'webhook');
  const e = await endpointInScope(core, actor, id);
  authorize(actor, 'view', 'webhook', e);
  return endpointView(e);
}

/** Adds an endpoint; its secret is answered this once (and by rotateSecret), never again. */
async function create(core: Core, actor: Actor, body: unknown): Promise<{ endpoint: EndpointView; secret: string }> {
  authorize(actor, 'create', 'webhook');
  const v = validate<EndpointCreateInput>(endpointCreateSchema, body);
  // another account is refused like an unknown one; an admin's must exist
  if (v.account_id !== undefined) namedAccountScope(actor, v.account_id);
  const account_id = targetAccount(actor, v.account_id);
  if (v.account_id !== undefined && !(await accountExists(core.db.sequelize, account_id)))
    throw ValidationError.single('account_id', 'The selected account_id is invalid.');
  authorize(actor, 'create', 'webhook', { account_id });
  await assertUrl(core, v.url);
  const secret = newSecret();
  const max = core.config.webhookMaxEndpointsPerAccount;
  const attrs = { account_id, url: v.url, events: v.events, active: v.active, secret };
  const e = await createEndpointCapped(core.db.sequelize, core.models, attrs, max);
  if (!e)
    throw ValidationError.single(
      'url',
      `An account may have at most ${max} webhook endpoints; delete one before adding another.`,
    );
  core.logger.info({ account_id, endpoint_id: e.id }, 'webhook endpoint created');
  return { endpoint: endpointView(e), secret };
}

/** Changes url, events or active; turning an endpoint on again forgets its failures (it starts afresh). */
async function update(core: Core, actor: Actor, id: unknown, body: unknown): Promise<EndpointView> {
  authorize(actor, 'update', 'webhook');
  const e = await endpointInScope(core, actor, id);
  authorize(actor, 'update', 'webhook', e);
  const v = validate<EndpointUpdateInput>(endpointUpdateSchema, body);
  if (v.url !== undefined) await assertUrl(core, v.url);
  const reactivated = v.active === true && !e.active;
  await e.update({
    ...v,
    ...(reactivated ? { failing_since: null, disabled_at: null, disabled_reason: null } : {}),
  });
  if (reactivated) {
    await restartPending(core.db.sequelize, e.id);
    await core.queue.enqueue(DELIVER_JOB, {});
  }
  return endpointView(e);
}

/** Deletes an endpoint and its delivery log. */
async function remove(core: Core, actor: Actor, id: unknown): Promise<{ deleted: number }> {
  authorize(actor, 'delete', 'webhook');
  const e = await endpointInScope(core, actor, id);
  authorize(actor, 'delete', 'webhook', e);
  await e.destroy();
  core.logger.info({ account_id: e.account_id, endpoint_id: e.id }, 'webhook endpoint deleted');
  return { deleted: 1 };
}

/**
 * A new secret for the endpoint, answered this once. Every attempt from now on is signed with it and, for
 * WEBHOOK_SECRET_GRACE_HOURS, with the secret it replaces too (two signatures), so the receiver can switch without
 * refusing a delivery; a second rotation within that time ends the first one's grace.
 */
async function rotateSecret(
  core: Core,
  actor: Actor,
  id: unknown,
): Promise<{ endpoint: EndpointView; secret: string }> {
  authorize(actor, 'update', 'webhook');
  const e = await endpointInScope(core, actor, id);
  authorize(actor, 'update', 'webhook', e);
  const secret = newSecret();
  const grace = core.config.webhookSecretGraceMs;
  await e.update({
    secret,
    previous_secret: grace > 0 ? e.secret : null,
    rotation_grace_until: grace > 0 ? new Date(Date.now() + grace) : null,
  });
  return { endpoint: endpointView(e), secret };
}

/** One page of the delivery log, newest first, of the account (or of one of its endpoints, or one state). */
async function deliveries(core: Core, actor: Actor, query: unknown): Promise<Page<DeliveryView>> {
  authorize(actor, 'viewAny', 'webhook');
  const q = validate<DeliveryListInput>(deliveryListSchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await deliveryPage(core.models, { ...q, accountId });
  return { data: rows.map(deliveryView), total, page: q.page, perPage: q.per_page };
}

async function showDelivery(core: Core, actor: Actor, id: unknown): Promise<DeliveryView> {
  authorize(actor, 'view', 'webhook');
  const d = await findDelivery(core.models, id, accountScope(actor).account_id);
  if (!d) throw new NotFoundError();
  authorize(actor, 'view', 'webhook', d);
  return deliveryView(d);
}

/**
 * Sends a delivery again: a new pending delivery, a copy of the event's payload with an event id of its own and
 * `resent_from` naming the original (docs/webhooks.md "Re-sending"), sent after what its sequence already holds.
 */
async function resend(core: Core, actor: Actor, deliveryId: unknown): Promise<DeliveryView> {
  authorize(actor, 'update', 'webhook');
  const d = await findDelivery(core.models, deliveryId, accountScope(actor).account_id);
  if (!d) throw new NotFoundError();
  authorize(actor, 'update', 'webhook', d);
  // a copy of a pending one would wait behind it and then arrive as a second event: resend what has ended
  if (d.state === 'pending')
    throw new ConflictError('The delivery is still pending; resend it once delivered or failed.');
  const copy = await copyDelivery(core.models, d);
  await core.queue.enqueue(DELIVER_JOB, {});
  return deliveryView(copy);
}

/** Webhook endpoints and their delivery log (issue 21, docs/webhooks.md). */
export function createWebhookService(core: Core, mailer: Mailer = createMailer(core.config)) {
  return {
    list: (actor: Actor, query?: unknown) => list(core, actor, query),
    show: (actor: Actor, id: unknown) => show(core, actor, id),
    create: (actor: Actor, body: unknown) => create(core, actor, body),
    update: (actor: Actor, id: unknown, body: unknown) => update(core, actor, id, body),
    remove: (actor: Actor, id: unknown) => remove(core, actor, id),
    rotateSecret: (actor: Actor, id: unknown) => rotateSecret(core, actor, id),
    deliveries: (actor: Actor, query?: unknown) => deliveries(core, actor, query),
    showDelivery: (actor: Actor, id: unknown) => showDelivery(core, actor, id),
    resend: (actor: Actor, deliveryId: unknown) => resend(core, actor, deliveryId),
    /** The delivery job's work: sends what is due (a system task, no actor); answers how many were attempted. */
    deliverDue: () => deliverDue(core, mailer),
    /** Fans every recorded event out to its endpoints now (the job does it before sending); answers how many. */
    fanOut: () => fanOutAll(core.db.sequelize),
    /**
     * The daily clean-up: delivered and failed deliveries older than WEBHOOK_LOG_DAYS go, and the events fanned out
     * before then (their deliveries carry their payload); answers how many deliveries went.
     */
    removeOldDeliveries: async () => {
      const before = new Date(Date.now() - core.config.webhookLogDays * 86_400_000);
      await removeEventsBefore(core.db.sequelize, before);
      return removeFinishedBefore(core.db.sequelize, before);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
