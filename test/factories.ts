import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { systemActor, userActor, type Actor, type Role, type Scope, SCOPES } from '../src/actor.js';
import type { AppContext } from '../src/app-context.js';

const sys = systemActor();
let seq = 0;
export const uid = () => `${Date.now().toString(36)}${(++seq).toString(36)}${crypto.randomBytes(2).toString('hex')}`;

export interface TestUser {
  id: number;
  email: string;
  password: string;
  name: string;
  role: Role;
  actor: Actor;
}
export interface TestAccount {
  id: number;
  name: string;
  seller: TestUser;
  agent: TestUser;
  /** Active products SKU-A, SKU-B, SKU-C (price 100, 200, 300) and inactive SKU-OFF. */
  skus: { active: string[]; inactive: string };
  token(scopes?: Scope[], name?: string): Promise<string>;
}

export async function makeUser(ctx: AppContext, accountId: number, role: Role, name?: string): Promise<TestUser> {
  const email = `${role}-${uid()}@test.local`;
  const password = 'password-123';
  const displayName = name ?? `${role[0].toUpperCase()}${role.slice(1)} ${uid()}`;
  const u = await ctx.services.accounts.createUser(sys, {
    account_id: accountId,
    role,
    email,
    password,
    name: displayName,
  });
  return {
    id: u.id,
    email,
    password,
    name: displayName,
    role,
    actor: userActor({ id: u.id, account_id: accountId, role, name: displayName }),
  };
}

/** A fresh tenant with a seller, an agent and products, so tests never share rows. */
export async function makeAccount(ctx: AppContext): Promise<TestAccount> {
  const name = `Shop ${uid()}`;
  const a = await ctx.services.accounts.createAccount(sys, { name });
  const seller = await makeUser(ctx, a.id, 'seller');
  const agent = await makeUser(ctx, a.id, 'agent');
  const prefix = `S${uid()}`.toUpperCase();
  const active = ['A', 'B', 'C'].map((s) => `${prefix}-${s}`);
  for (const [i, sku] of active.entries())
    await ctx.services.catalogue.createProduct(sys, {
      account_id: a.id,
      sku,
      name: `Product ${sku}`,
      price: (i + 1) * 100,
    });
  const inactive = `${prefix}-OFF`;
  await ctx.services.catalogue.createProduct(sys, {
    account_id: a.id,
    sku: inactive,
    name: 'Old product',
    price: 50,
    active: false,
  });
  return {
    id: a.id,
    name,
    seller,
    agent,
    skus: { active, inactive },
    async token(scopes = [...SCOPES], tokenName = 'shop') {
      const t = await ctx.services.tokens.createToken(sys, { user_id: seller.id, name: tokenName, scopes });
      return t.token;
    },
  };
}

export async function makeAdmin(ctx: AppContext): Promise<TestUser> {
  const a = await ctx.services.accounts.createAccount(sys, { name: `Back office ${uid()}` });
  return makeUser(ctx, a.id, 'admin');
}

/** A shipping company "fast" of the account, on a closed local port: pushes to it fail, its code is a valid value. */
export function makeCarrier(ctx: AppContext, accountId: number) {
  return ctx.services.shipping.createCompany(sys, {
    account_id: accountId,
    code: 'fast',
    name: 'Fast',
    endpoint_url: 'http://127.0.0.1:9/x',
    hmac_secret: 'secret-0123456789',
  });
}

/** A plaintext secret of a tenant and what the database stores of it. */
export interface FilledAccount extends TestAccount {
  secrets: string[];
  leadIds: number[];
}

/**
 * A tenant with rows in every table the panel shows: leads (one confirmed, so an order and both histories), products,
 * users, an API token, a shipping company with a key and a secret, a webhook endpoint with its deliveries, a blocked
 * phone, an import run and an export run. `secrets` holds every secret value it owns (token, token hash, password
 * hashes, carrier key and secret, webhook signing secret), for tests that look for leaks.
 */
/**
 * Lead sources (issue 34): a form and a signed shop, and the form's intake log: a lead created, a refusal, and an
 * entry past the kept 30 days (last, so the first row of the log is one the panel shows). Answers the shop's secret.
 */
async function fillSources(ctx: AppContext, acc: TestAccount, tag: string): Promise<string> {
  const shopSecret = `shop-secret-${tag}-${crypto.randomBytes(8).toString('hex')}`;
  const form = await ctx.services.sources.create(acc.seller.actor, {
    kind: 'form',
    name: `Landing ${tag}`,
    allowed_origins: ['https://shop.example'],
  });
  await ctx.services.sources.create(acc.seller.actor, {
    kind: 'shopify',
    name: `Shop ${tag}`,
    signing_secret: shopSecret,
  });
  const lead = await ctx.models.Lead.findOne({ where: { account_id: acc.id }, order: [['id', 'ASC']] });
  const entry = { account_id: acc.id, source_id: form.id, origin: 'https://shop.example', client_ip: '203.0.113.7' };
  const payload = { full_name: `Visitor ${tag}`, phone: '0612345678' };
  await ctx.models.LeadIntake.bulkCreate([
    { ...entry, outcome: 'created', lead_id: lead?.id, lead_reference: lead?.get('reference'), payload },
    { ...entry, outcome: 'refused', reason: 'The website field must be empty.', payload },
    { ...entry, outcome: 'created', received_at: new Date(Date.now() - 40 * 86_400_000), payload },
  ]);
  return shopSecret;
}

export async function makeFilledAccount(ctx: AppContext, tag = uid()): Promise<FilledAccount> {
  const acc = await makeAccount(ctx);
  // before the leads, so their events leave deliveries in the log
  const hook = await ctx.services.webhooks.create(acc.seller.actor, {
    url: `http://127.0.0.1:9/hook-${tag}`,
    events: ['lead.created', 'lead.status_changed', 'order.created', 'order.status_changed', 'import.finished'],
  });
  const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
    leads: [0, 1].map((i) => ({
      phone: `+2126${String(acc.id % 10000).padStart(4, '0')}${i}${String(Date.now() % 1000).padStart(3, '0')}`,
      full_name: `Customer ${tag} ${i}`,
      city: `Town ${tag}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    })),
  });
  await ctx.services.leads.updateStatuses(acc.seller.actor, {
    leads: [{ reference: references[0], status: 'confirmed' }],
  });
  // deliveries are made from the event log by the delivery job's fan-out (src/webhooks/webhook-fanout.ts)
  await ctx.services.webhooks.fanOut();
  // a blocked phone (issue 33), after the leads so they stay as created
  await ctx.services.blocklist.block(acc.seller.actor, {
    phone: `+2127${String(acc.id % 10000).padStart(4, '0')}${String(Date.now() % 10000).padStart(4, '0')}`,
    reason: `Blocked by ${tag}`,
  });
  const shopSecret = await fillSources(ctx, acc, tag);
  const token = await acc.token(undefined, `key ${tag}`);
  const apiKey = `api-key-${tag}-${crypto.randomBytes(8).toString('hex')}`;
  const hmacSecret = `hmac-secret-${tag}-${crypto.randomBytes(8).toString('hex')}`;
  await ctx.services.shipping.createCompany(sys, {
    account_id: acc.id,
    code: `ship-${tag}`.toLowerCase().slice(0, 40),
    name: `Carrier ${tag}`,
    endpoint_url: `http://127.0.0.1:9/${tag}`,
    api_key: apiKey,
    hmac_secret: hmacSecret,
  });
  const file = path.join(os.tmpdir(), `filled-${tag}-${process.pid}.csv`);
  await fs.promises.writeFile(file, `phone,sku\n+212600000001,${acc.skus.active[0]}\n`);
  await ctx.services.imports.start(acc.seller.actor, { path: file, originalname: `upload-${tag}.csv`, size: 40 });
  await ctx.services.exports.start(acc.seller.actor, { file_extension: 'csv' });
  const hashes = await ctx.db.sequelize.query<{ h: string }>(
    `SELECT password_hash AS h FROM users WHERE account_id = :id UNION ALL SELECT token_hash FROM api_tokens WHERE account_id = :id`,
    { replacements: { id: acc.id }, type: QueryTypes.SELECT },
  );
  const leadIds = (await ctx.models.Lead.findAll({ where: { account_id: acc.id }, attributes: ['id'] })).map((l) =>
    Number(l.id),
  );
  return {
    ...acc,
    leadIds,
    secrets: [token, token.split('|')[1], apiKey, hmacSecret, hook.secret, shopSecret, ...hashes.map((r) => r.h)],
  };
}
