import { isPublicKey } from './intake-url.js';
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import { systemActor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../errors.js';
import type { LeadService, PreparedLead } from '../leads/lead.service.js';
import { BAD_SIGNATURE, countIntake, recordIntake, recordRefusal, type IntakeEntry } from './intake.repository.js';
import { shopify } from './shopify.js';
import { activeStoreSource, leadOfOrder, type StoreSource } from './store-intake.repository.js';
import {
  keptReason,
  leadItemOf,
  resolveLines,
  wantedSkus,
  type StoreOrder,
  type StorePlatform,
} from './store-order.js';
import { fitJson, parseBody, utmOf } from './store-payload.js';
import { woocommerce } from './woocommerce.js';

/** The shops LeadFlow takes orders from, by the kind their source has (and their address names). */
export const STORE_PLATFORMS = { shopify, woocommerce } as const;
export type StoreKind = keyof typeof STORE_PLATFORMS;

/**
 * The largest delivery read: an order of 100 lines (the most a lead holds) is ≈ 200 KB of Shopify JSON. A larger body
 * is a 413, logged against its source.
 */
export const STORE_BODY_MAX_BYTES = 1024 * 1024;

/** One HTTP delivery: the exact bytes (the signature is over them), the headers, the sender's address. */
export interface StoreDelivery {
  raw: Buffer;
  headers: Record<string, string | string[] | undefined>;
  clientIp: string | null;
}

/** What a signed delivery is answered (always 200: docs/lead-sources.md, "What a shop is answered"). */
export interface StoreAnswer {
  message: string;
  outcome?: 'created' | 'duplicate' | 'refused';
  reference?: string;
}

type Log = (
  entry: Omit<IntakeEntry, 'accountId' | 'sourceId' | 'clientIp' | 'origin'>,
  t?: Transaction,
) => Promise<void>;
/** One delivery being handled: its source, its platform, and the intake log entry's fixed part. */
interface Intake {
  core: Core;
  leads: LeadService;
  source: StoreSource;
  platform: StorePlatform;
  log: Log;
}

const headerOf = (d: Pick<StoreDelivery, 'headers'>, name: string) => {
  const v = d.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/** base64 HMAC-SHA256 of the exact bytes, compared in constant time (both platforms sign this way). */
export function signedBy(secret: string | null, raw: Buffer, header: string | undefined): boolean {
  if (!secret || header === undefined) return false;
  const expected = Buffer.from(crypto.createHmac('sha256', secret).update(raw).digest('base64'));
  const given = Buffer.from(header.trim());
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** The active source of the address, or a 404 (unknown, inactive, another kind): nothing is logged for it. */
async function sourceOf(core: Core, kind: string, publicKey: unknown): Promise<[StoreSource, StorePlatform]> {
  const platform = Object.hasOwn(STORE_PLATFORMS, kind) ? STORE_PLATFORMS[kind as StoreKind] : null;
  const key = isPublicKey(publicKey) ? publicKey : null;
  const source = platform && key ? await activeStoreSource(core.db.sequelize, platform.kind, key) : null;
  if (!platform || !source) throw new NotFoundError();
  return [source, platform];
}

function intakeOf(core: Core, leads: LeadService, found: [StoreSource, StorePlatform], d: Omit<StoreDelivery, 'raw'>) {
  const [source, platform] = found;
  const fixed = {
    accountId: source.account_id,
    sourceId: source.id,
    clientIp: d.clientIp,
    origin: headerOf(d, platform.headers.shop) ?? null,
  };
  // a refusal is kept whole up to the hourly cap, then counted (src/sources/intake.repository.ts)
  const log: Log = (entry, t) =>
    entry.outcome === 'refused' && !t
      ? recordRefusal(core.db.sequelize, { ...fixed, ...entry }, core.config.forms.logRefusalsPerHour)
      : recordIntake(core.db.sequelize, { ...fixed, ...entry }, t);
  /** A delivery anyone could have sent (a bad signature): counted per address and minute, never the source's fault. */
  const unsigned = () => countIntake(core.db.sequelize, { ...fixed, outcome: 'refused', reason: BAD_SIGNATURE });
  return { core, leads, source, platform, log, unsigned };
}

async function refuse(intake: Intake, reason: string, payload: unknown, externalId?: string): Promise<StoreAnswer> {
  await intake.log({ outcome: 'refused', reason, payload, externalId });
  return { message: `Refused: ${reason.replace(/\.$/, '')}.`, outcome: 'refused' };
}

async function duplicate(intake: Intake, order: StoreOrder, summary: object): Promise<StoreAnswer> {
  const lead = await leadOfOrder(intake.core.db.sequelize, intake.source.id, order.orderId);
  const reason = 'order already received';
  await intake.log({
    outcome: 'duplicate',
    reason,
    leadId: lead?.id,
    leadReference: lead?.reference,
    externalId: order.orderId,
    payload: summary,
  });
  return { message: 'Order already received.', outcome: 'duplicate', ...(lead ? { reference: lead.reference } : {}) };
}

/** A second delivery of the order committed first: the unique index leads_source_external_key refused this one. */
const orderTaken = (err: unknown) => {
  const original = (err as { original?: { code?: string; constraint?: string } }).original;
  return original?.code === '23505' && original.constraint === 'leads_source_external_key';
};

/** The order as a lead: checked by the spec's rules, written with its intake entry in one transaction. */
async function intakeOrder(intake: Intake, order: StoreOrder, payload: unknown, summary: object) {
  const { core, leads, source, platform } = intake;
  const { sequelize } = core.db;
  if (await leadOfOrder(sequelize, source.id, order.orderId)) return duplicate(intake, order, summary);
  const catalogue = await leads.activeProducts(source.account_id, wantedSkus(order.lines, source.product_mapping));
  const lines = resolveLines(order.lines, source.product_mapping, catalogue);
  const actor = systemActor(source.account_id);
  const item = leadItemOf(order, lines);
  const { prepared, errors } = await leads.prepareLeads(actor, [item], 'order', source.account_id, {
    productsOptional: true,
    catalogue,
  });
  if (Object.keys(errors).length)
    return refuse(intake, `invalid order: ${ValidationError.summary(errors)}`, fitJson(payload), order.orderId);
  const origin = {
    sourceId: source.id,
    name: `${platform.label}: ${source.name}`,
    utm: utmOf(order.landingSite),
    externalId: order.orderId,
  };
  try {
    return await sequelize.transaction(async (transaction): Promise<StoreAnswer> => {
      const [reference] = await leads.insertLeads(actor, prepared as PreparedLead[], {
        transaction,
        accountId: source.account_id,
        origin,
      });
      const lead = await leadOfOrder(sequelize, source.id, order.orderId, transaction);
      const reason = keptReason(lines.kept);
      await intake.log(
        {
          outcome: 'created',
          reason,
          leadId: lead!.id,
          leadReference: reference,
          externalId: order.orderId,
          payload: summary,
        },
        transaction,
      );
      return { message: 'Lead created.', outcome: 'created', reference };
    });
  } catch (err) {
    if (!orderTaken(err)) throw err;
    return duplicate(intake, order, summary);
  }
}

/**
 * A shop's webhook delivery (docs/lead-sources.md): the source named by the address (404 when unknown or inactive),
 * WooCommerce's ping answered, the signature checked over the exact bytes (401 and logged when wrong), then the
 * order made a lead once. Whatever a signed delivery holds, it is answered 200 and logged: a shop retries any other
 * answer for hours, and a body that failed once fails every time (a database outage is not answered 200).
 */
async function receive(core: Core, leads: LeadService, kind: string, publicKey: unknown, d: StoreDelivery) {
  const found = await sourceOf(core, kind, publicKey);
  const intake = intakeOf(core, leads, found, d);
  const { platform, source } = intake;
  const signature = headerOf(d, platform.headers.signature);
  if (platform.isPing(d.raw, signature)) return { message: 'Webhook saved.' };
  if (!signedBy(source.signing_secret, d.raw, signature)) {
    await intake.unsigned();
    throw new UnauthenticatedError('Invalid signature.');
  }
  const topic = headerOf(d, platform.headers.topic) ?? null;
  const deliveryId = headerOf(d, platform.headers.delivery)?.slice(0, 100) ?? null;
  if (topic !== platform.topic)
    return refuse(intake, `topic not handled: ${topic ?? 'none'}`, fitJson({ topic, delivery_id: deliveryId }));
  const payload = parseBody(d.raw);
  if (payload === undefined)
    return refuse(intake, 'malformed JSON', fitJson({ topic, delivery_id: deliveryId, body: d.raw.toString('utf8') }));
  const order = platform.readOrder(payload);
  if (typeof order === 'string') return refuse(intake, `invalid order: ${order}`, fitJson(payload));
  const summary = fitJson({ topic, delivery_id: deliveryId, order: order.label, lines: order.lines.length });
  return intakeOrder(intake, order, payload, summary as object);
}

export function createStoreIntakeService(core: Core, deps: { leads: LeadService }) {
  return {
    /** A shop's order webhook: see receive. */
    receive: (kind: string, publicKey: unknown, delivery: StoreDelivery): Promise<StoreAnswer> =>
      receive(core, deps.leads, kind, publicKey, delivery),
    /** A delivery over STORE_BODY_MAX_BYTES, logged against its source (a 404 when there is none) before its 413. */
    async refuseOversized(kind: string, publicKey: unknown, delivery: Omit<StoreDelivery, 'raw'>): Promise<void> {
      const intake = intakeOf(core, deps.leads, await sourceOf(core, kind, publicKey), delivery);
      await intake.log({ outcome: 'refused', reason: `body over ${STORE_BODY_MAX_BYTES / 1024 / 1024} MB` });
    },
  };
}
export type StoreIntakeService = ReturnType<typeof createStoreIntakeService>;
