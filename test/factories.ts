import crypto from 'node:crypto';
import { systemActor, userActor, type Actor, type Role, type Scope, SCOPES } from '../src/actor.js';
import type { AppContext } from '../src/app-context.js';

const sys = systemActor();
let seq = 0;
export const uid = () => `${Date.now().toString(36)}${(++seq).toString(36)}${crypto.randomBytes(2).toString('hex')}`;

export interface TestUser { id: number; email: string; password: string; name: string; role: Role; actor: Actor }
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
  const u = await ctx.services.accounts.createUser(sys, { account_id: accountId, role, email, password, name: displayName });
  return { id: u.id, email, password, name: displayName, role, actor: userActor({ id: u.id, account_id: accountId, role, name: displayName }) };
}

/** A fresh tenant with a seller, an agent and products, so tests never share rows. */
export async function makeAccount(ctx: AppContext): Promise<TestAccount> {
  const name = `Shop ${uid()}`;
  const a = await ctx.services.accounts.createAccount(sys, { name });
  const seller = await makeUser(ctx, a.id, 'seller');
  const agent = await makeUser(ctx, a.id, 'agent');
  const prefix = `S${uid()}`.toUpperCase();
  const active = ['A', 'B', 'C'].map((s) => `${prefix}-${s}`);
  for (const [i, sku] of active.entries()) await ctx.services.catalogue.createProduct(sys, { account_id: a.id, sku, name: `Product ${sku}`, price: (i + 1) * 100 });
  const inactive = `${prefix}-OFF`;
  await ctx.services.catalogue.createProduct(sys, { account_id: a.id, sku: inactive, name: 'Old product', price: 50, active: false });
  return {
    id: a.id, name, seller, agent, skus: { active, inactive },
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
