import crypto from 'node:crypto';
import { systemActor } from './actor.js';
import type { AppContext } from '../src/context.js';
import { withMigrationLock } from './db/migrator.js';

export const DEMO_ACCOUNT = 'Demo Store';
const SYSTEM_ACCOUNT = 'Back Office';

const CITIES = [
  'Casablanca',
  'Rabat',
  'Marrakesh',
  'Fes',
  'Tangier',
  'Agadir',
  'Meknes',
  'Oujda',
  'Kenitra',
  'Tetouan',
  'Riyadh',
  'Jeddah',
  'Dubai',
  'Abu Dhabi',
  'Cairo',
  'Alexandria',
  'Tunis',
  'Algiers',
  'Lagos',
  'Nairobi',
];
const PRODUCTS = [
  { sku: 'SERUM-01', name: 'Vitamin C Serum', price: 199 },
  { sku: 'CREAM-02', name: 'Night Cream', price: 249 },
  { sku: 'OIL-03', name: 'Argan Oil 100ml', price: 149 },
  { sku: 'MASK-04', name: 'Clay Face Mask', price: 99 },
  { sku: 'KIT-05', name: 'Care Kit', price: 499 },
  { sku: 'OLD-06', name: 'Discontinued Lotion', price: 79, active: false },
];

export interface SeedResult {
  created: boolean;
  admin?: { email: string; password: string | null };
  demo?: { accountId: number; seller: { email: string; password: string }; agent: { email: string; password: string } };
}

/**
 * First-start data: an admin, the "Demo Store" account with a seller, an agent, products and the city list.
 * Idempotent: the admin's existence marks a seeded database, so a second start creates nothing. It runs under the
 * migrations' advisory lock, so processes started together on a new database seed once and the others go on.
 */
export async function seed(ctx: AppContext): Promise<SeedResult> {
  return withMigrationLock(ctx.db.url, () => seedOnce(ctx));
}

async function seedOnce(ctx: AppContext): Promise<SeedResult> {
  const { User, Account, City } = ctx.models;
  if (await User.findOne({ where: { role: 'admin' } })) return { created: false };
  const sys = systemActor();
  const adminPassword = ctx.config.adminPassword ?? crypto.randomBytes(9).toString('base64url');
  const backOffice =
    // names are not unique (a tenant may call itself the same): the oldest such account is the back office's
    (await Account.findOne({ where: { name: SYSTEM_ACCOUNT }, order: [['id', 'ASC']] })) ??
    (await Account.create({ name: SYSTEM_ACCOUNT, phone_country: ctx.config.defaultCountry }));
  await ctx.services.accounts.createUser(sys, {
    account_id: backOffice.id,
    role: 'admin',
    email: ctx.config.adminEmail,
    password: adminPassword,
    name: 'Administrator',
  });

  const demo = await ctx.services.accounts.createAccount(sys, { name: DEMO_ACCOUNT });
  const sellerPassword = crypto.randomBytes(9).toString('base64url');
  const agentPassword = crypto.randomBytes(9).toString('base64url');
  await ctx.services.accounts.createUser(sys, {
    account_id: demo.id,
    role: 'seller',
    email: 'seller@demo.test',
    password: sellerPassword,
    name: 'Demo Seller',
  });
  await ctx.services.accounts.createUser(sys, {
    account_id: demo.id,
    role: 'agent',
    email: 'agent@demo.test',
    password: agentPassword,
    name: 'Demo Agent',
  });
  for (const p of PRODUCTS) await ctx.services.catalogue.createProduct(sys, { account_id: demo.id, ...p });
  const existing = new Set((await City.findAll()).map((c) => c.name.toLowerCase()));
  await City.bulkCreate(CITIES.filter((c) => !existing.has(c.toLowerCase())).map((name) => ({ name })));

  return {
    created: true,
    admin: { email: ctx.config.adminEmail, password: ctx.config.adminPassword ? null : adminPassword },
    demo: {
      accountId: demo.id,
      seller: { email: 'seller@demo.test', password: sellerPassword },
      agent: { email: 'agent@demo.test', password: agentPassword },
    },
  };
}
