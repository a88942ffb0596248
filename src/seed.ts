import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { AppContext } from '../src/app-context.js';
import { normalizeEmail } from './email.js';
import { withMigrationLock } from './db/migrator.js';
import { hashPassword } from './passwords.js';
import { DEMO_ACCOUNT, DEMO_PRODUCTS, seedSampleLeads } from './seed-demo.js';

export { DEMO_ACCOUNT } from './seed-demo.js';
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

type Login = { email: string; password: string };
export interface SeedResult {
  created: boolean;
  /** The admin's login; password null when ADMIN_PASSWORD gave it. */
  admin?: { email: string; password: string | null };
  /** The demo account (SEED_DEMO), with its logins. */
  demo?: { accountId: number; seller: Login; agent: Login };
}

/** A first start stopped (SIGTERM) before its seed committed: nothing of it was kept, the next start seeds again. */
export class SeedInterrupted extends Error {
  constructor() {
    super('first-start seed interrupted before it committed; nothing was kept');
    this.name = 'SeedInterrupted';
  }
}

/**
 * First-start data, in one transaction: the admin (in the "Back Office" account) and, with SEED_DEMO, the "Demo Store"
 * account with a seller, an agent, products, the city list and sample leads (src/seed-demo.ts). An interrupted seed
 * (`signal` aborted, a killed process) keeps nothing, so the next start seeds again and shows the logins. Idempotent:
 * an admin marks a seeded database. It runs under the migrations' advisory lock, so processes started together on a
 * new database seed once and the others go on. A generated admin password is recorded as not shown yet
 * (`unshown_logins`) until `loginsShown` is called after printing it.
 */
export async function seed(ctx: AppContext, opts: { signal?: AbortSignal } = {}): Promise<SeedResult> {
  return withMigrationLock(ctx.db.url, () => seedOnce(ctx, opts.signal));
}

const newPassword = () => crypto.randomBytes(9).toString('base64url');

/** Throws SeedInterrupted once the start is stopped: the transaction rolls back. */
function checkpoint(signal?: AbortSignal): void {
  if (signal?.aborted) throw new SeedInterrupted();
}

/** Waits `ms`, or less when `signal` aborts first. */
const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function seedOnce(ctx: AppContext, signal?: AbortSignal): Promise<SeedResult> {
  if (await ctx.models.User.findOne({ where: { role: 'admin' } })) return { created: false };
  const { config } = ctx;
  const passwords = { admin: config.adminPassword ?? newPassword(), seller: newPassword(), agent: newPassword() };
  const hashes = Object.fromEntries(
    await Promise.all(
      Object.entries(passwords).map(async ([k, v]) => [k, await hashPassword(v, config.passwordHashCost)]),
    ),
  ) as Record<keyof typeof passwords, string>;
  const demoId = await ctx.db.sequelize.transaction(async (transaction) => {
    await createAdmin(ctx, transaction, hashes.admin);
    checkpoint(signal);
    return config.seedDemo ? createDemo(ctx, transaction, hashes, signal) : null;
  });
  return {
    created: true,
    admin: { email: config.adminEmail, password: config.adminPassword ? null : passwords.admin },
    ...(demoId
      ? {
          demo: {
            accountId: demoId,
            seller: { email: 'seller@demo.test', password: passwords.seller },
            agent: { email: 'agent@demo.test', password: passwords.agent },
          },
        }
      : {}),
  };
}

async function createAdmin(ctx: AppContext, transaction: Transaction, hash: string): Promise<number> {
  const { Account, User } = ctx.models;
  const backOffice =
    // names are not unique (a tenant may call itself the same): the oldest such account is the back office's
    (await Account.findOne({ where: { name: SYSTEM_ACCOUNT }, order: [['id', 'ASC']], transaction })) ??
    (await Account.create({ name: SYSTEM_ACCOUNT, phone_country: ctx.config.defaultCountry }, { transaction }));
  const admin = await User.create(
    {
      account_id: backOffice.id,
      role: 'admin',
      email: normalizeEmail(ctx.config.adminEmail),
      password_hash: hash,
      name: 'Administrator',
    },
    { transaction },
  );
  // a generated password nobody has seen yet: a start that finds it still unshown says how to set one (loginHint)
  if (!ctx.config.adminPassword)
    await ctx.db.sequelize.query('INSERT INTO unshown_logins (user_id, password_hash) VALUES ($1, $2)', {
      bind: [admin.id, hash],
      transaction,
    });
  return admin.id;
}

async function createDemo(
  ctx: AppContext,
  transaction: Transaction,
  hashes: { seller: string; agent: string },
  signal?: AbortSignal,
): Promise<number> {
  const { Account, User, Product, City } = ctx.models;
  const demo = await Account.create({ name: DEMO_ACCOUNT, phone_country: ctx.config.defaultCountry }, { transaction });
  const user = (role: 'seller' | 'agent', name: string) =>
    User.create(
      { account_id: demo.id, role, email: `${role}@demo.test`, password_hash: hashes[role], name },
      { transaction },
    );
  const seller = await user('seller', 'Demo Seller');
  // the worst moment of a first start, for the tests that stop one there (TEST_SEED_PAUSE_MS, NODE_ENV=test only)
  if (ctx.config.testSeedPauseMs) {
    ctx.logger.info('first-start seed paused midway (TEST_SEED_PAUSE_MS)');
    await pause(ctx.config.testSeedPauseMs, signal);
  }
  checkpoint(signal);
  const agent = await user('agent', 'Demo Agent');
  const products = await Product.bulkCreate(
    DEMO_PRODUCTS.map((p) => ({ account_id: demo.id, active: true, ...p })),
    { transaction, returning: true },
  );
  const existing = new Set((await City.findAll({ transaction })).map((c) => c.name.toLowerCase()));
  await City.bulkCreate(
    CITIES.filter((c) => !existing.has(c.toLowerCase())).map((name) => ({ name })),
    { transaction },
  );
  checkpoint(signal);
  const catalogue = new Map(
    products
      .filter((p) => p.active)
      .map((p) => [p.sku, { id: p.id, sku: p.sku, name: p.name, price: Number(p.price) }]),
  );
  await seedSampleLeads(ctx, transaction, {
    accountId: demo.id,
    seller: { id: seller.id, name: seller.name },
    agent: { id: agent.id, name: agent.name },
    catalogue,
    country: demo.phone_country,
  });
  return demo.id;
}

/** The seed's logins were printed: the admin's generated password is no longer unshown. */
export async function loginsShown(ctx: AppContext, adminEmail: string): Promise<void> {
  await ctx.db.sequelize.query('DELETE FROM unshown_logins WHERE user_id IN (SELECT id FROM users WHERE email = $1)', {
    bind: [normalizeEmail(adminEmail)],
  });
}

/**
 * One line saying how to get an admin login, or null when one is usable: an admin whose generated password was never
 * shown (a first start stopped between its commit and its print, or by an earlier version that seeded in parts) and
 * has not been set since, or no active admin at all. Rows of passwords set since are cleared here.
 */
export async function loginHint(ctx: AppContext): Promise<string | null> {
  const { sequelize } = ctx.db;
  await sequelize.query(
    'DELETE FROM unshown_logins s USING users u WHERE u.id = s.user_id AND u.password_hash <> s.password_hash',
  );
  const [unshown] = (await sequelize.query(
    `SELECT u.email FROM unshown_logins s JOIN users u ON u.id = s.user_id WHERE u.active ORDER BY u.id LIMIT 1`,
  )) as [{ email: string }[], unknown];
  if (unshown.length)
    return (
      `The admin login ${unshown[0].email} was created but its password was never shown (the first start was ` +
      `interrupted): set one with "npm run -s cli -- user:password --email ${unshown[0].email}"`
    );
  const [active] = (await sequelize.query(
    "SELECT count(*)::int AS n, (SELECT email FROM users WHERE role = 'admin' ORDER BY id LIMIT 1) AS email " +
      "FROM users WHERE role = 'admin' AND active",
  )) as [{ n: number; email: string | null }[], unknown];
  if (active[0].n > 0 || !active[0].email) return null;
  return (
    `No admin login is active: switch one on with "npm run -s cli -- user:password --email ${active[0].email} ` +
    `--activate"`
  );
}
