import crypto from 'node:crypto';
import fs from 'node:fs';
import { QueryTypes } from 'sequelize';
import { systemActor } from '../src/actor.js';
import type { AppContext } from '../src/app-context.js';
import { LeadSource } from '../src/sources/lead-source.model.js';
import { makeAccount, uid, type TestAccount } from './factories.js';

/**
 * Shops' webhooks as the platforms send them (docs/lead-sources.md): the documented sample bodies of
 * test/fixtures/ and the signature each platform documents, base64 HMAC-SHA256 of the exact body bytes, made here.
 */

/** The text of a fixture, byte for byte what the test sends (and signs). */
export const fixture = (name: 'shopify-orders-create' | 'woocommerce-order-created') =>
  fs.readFileSync(new URL(`fixtures/${name}.json`, import.meta.url), 'utf8');

export const sign = (secret: string, raw: string | Buffer) =>
  crypto.createHmac('sha256', secret).update(raw).digest('base64');

export interface TestSource {
  id: number;
  kind: 'shopify' | 'woocommerce';
  name: string;
  key: string;
  secret: string;
}

/** A store source of the account (the sources service is another branch's: made with the model, as it stores them). */
export async function makeStoreSource(
  accountId: number,
  kind: TestSource['kind'],
  opts: { mapping?: Record<string, string>; active?: boolean; secret?: string | null } = {},
): Promise<TestSource> {
  const secret = opts.secret === undefined ? crypto.randomBytes(24).toString('hex') : opts.secret;
  const s = await LeadSource.create({
    account_id: accountId,
    kind,
    name: `Shop ${uid()}`,
    public_key: crypto.randomBytes(16).toString('hex'),
    signing_secret: secret,
    product_mapping: opts.mapping ?? {},
    active: opts.active ?? true,
  });
  return { id: s.id, kind, name: s.name, key: s.public_key, secret: secret ?? '' };
}

/** An account whose phones are read as US numbers (the documented samples' phones) with the given products. */
export async function makeStoreAccount(ctx: AppContext, products: [string, number][]): Promise<TestAccount> {
  const acc = await makeAccount(ctx);
  await ctx.services.accounts.updateAccount(systemActor(), acc.id, { phone_country: 'US' });
  for (const [sku, price] of products)
    await ctx.services.catalogue.createProduct(systemActor(), {
      account_id: acc.id,
      sku,
      name: `Product ${sku}`,
      price,
    });
  return acc;
}

const HEADERS = {
  shopify: (topic: string, signature: string) => ({
    'x-shopify-topic': topic,
    'x-shopify-hmac-sha256': signature,
    'x-shopify-shop-domain': 'johns-apparel.myshopify.com',
    'x-shopify-api-version': '2025-10',
    'x-shopify-webhook-id': crypto.randomUUID(),
  }),
  woocommerce: (topic: string, signature: string) => ({
    'x-wc-webhook-topic': topic,
    'x-wc-webhook-resource': topic.split('.')[0],
    'x-wc-webhook-event': topic.split('.')[1] ?? '',
    'x-wc-webhook-signature': signature,
    'x-wc-webhook-source': 'https://example.com/',
    'x-wc-webhook-id': '3',
    'x-wc-webhook-delivery-id': crypto.randomBytes(16).toString('hex'),
  }),
};
const TOPIC = { shopify: 'orders/create', woocommerce: 'order.created' };

/**
 * POSTs `raw` to the source's address as its platform delivers it: signed with `secret` (the source's unless given),
 * the platform's topic unless given, `headers` added or overriding (an undefined value removes one).
 */
export function deliver(
  baseUrl: string,
  source: TestSource,
  raw: string | Buffer,
  opts: { secret?: string; topic?: string; headers?: Record<string, string | undefined>; key?: string } = {},
) {
  const signature = sign(opts.secret ?? source.secret, raw);
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    ...HEADERS[source.kind](opts.topic ?? TOPIC[source.kind], signature),
    ...opts.headers,
  };
  return fetch(`${baseUrl}/api/web/1.0/intake/${source.kind}/${opts.key ?? source.key}`, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>,
    body: typeof raw === 'string' ? raw : new Uint8Array(raw),
  });
}

export interface IntakeRow {
  outcome: string;
  reason: string | null;
  lead_reference: string | null;
  external_id: string | null;
  origin: string | null;
  attempts: number;
  payload: Record<string, unknown> | null;
}

/** The source's intake log, oldest first. */
export const intakeOf = (ctx: AppContext, sourceId: number) =>
  ctx.db.sequelize.query<IntakeRow>(
    `SELECT outcome, reason, lead_reference, external_id, origin, attempts, payload FROM lead_intake
      WHERE source_id = :sourceId ORDER BY id`,
    { replacements: { sourceId }, type: QueryTypes.SELECT },
  );

/** The account's leads with their source and order id, oldest first. */
export const leadsOf = (ctx: AppContext, accountId: number) =>
  ctx.db.sequelize.query<{ reference: string; source_id: number | null; external_id: string | null; status: string }>(
    'SELECT reference, source_id, external_id, status FROM leads WHERE account_id = :accountId ORDER BY id',
    { replacements: { accountId }, type: QueryTypes.SELECT },
  );
