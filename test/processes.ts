import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { getCtx } from './hooks.js';
import { runCli, waitFor } from './spawn.js';

export { exited, randomPort, runCli, runMain, waitFor } from './spawn.js';

/** A shipping company `local` of the account, posting to `url` (a carrier the test runs on 127.0.0.1), via the CLI. */
export async function localCarrier(env: Record<string, string>, accountId: number, url: string, extra: string[] = []) {
  const args = ['--account', String(accountId), '--code', 'local', '--name', 'Local Carrier', '--url', url];
  await runCli(env, ['shipping:create', ...args, '--secret', 'carrier-secret-0123456789', ...extra]);
}

/** The demo seller of a new database (seeded through the CLI), with a token of the given scopes. */
export async function sellerToken(
  env: Record<string, string>,
  scopes: string,
): Promise<{ token: string; accountId: number; password: string }> {
  const seeded = await runCli(env, ['seed']);
  const t = await runCli(env, ['token:create', '--email', 'seller@demo.test', '--name', 'test', '--scopes', scopes]);
  return { token: t.token, accountId: seeded.demo.accountId, password: seeded.demo.seller.password };
}

/**
 * A superuser's connection string for the suite's database: the embedded server's bootstrap role (the application's
 * own role may not create databases or roles), or DATABASE_URL's.
 */
export const adminUrl = (): string => getCtx().db.embedded?.adminUrl ?? getCtx().db.url;

/** An empty database beside the suite's own, on the same server, owned by the application's role; `drop()` removes it. */
export async function freshDatabase(suffix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${new URL(getCtx().db.url).pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(
    `CREATE DATABASE "${name}" OWNER ${pg.escapeIdentifier(decodeURIComponent(new URL(getCtx().db.url).username))}`,
  );
  const url = new URL(getCtx().db.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}

/** Waits (60 s at most) until the process serving `base` is ready; the assertion shows the process's output. */
export async function expectReady(base: string, proc: { output: { text: string } }): Promise<void> {
  expect(
    await waitFor(async () => (await fetch(`${base}/health/ready`)).status === 200, 60_000),
    proc.output.text,
  ).to.equal(true);
}

/** `count` cash-on-delivery orders of the seller made by sellerToken (sku SERUM-01), phones numbered from `from`. */
export const buyerOrders = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({
    phone: `+2126${String(from + i).padStart(8, '0')}`,
    full_name: `Buyer ${i}`,
    city: 'Fes',
    address: `${i} Rue Talaa`,
    products: [{ sku: 'SERUM-01', quantity: 1, price: 199 }],
  }));

/**
 * New directories under ./data for one file's tests (`newDir(prefix)`), which the embedded server's user can enter
 * (run as root, it runs as `postgres`); `removeAll()` in the file's after().
 */
export function dataDirs() {
  const dirs: string[] = [];
  return {
    newDir(prefix: string): string {
      fs.mkdirSync('data', { recursive: true });
      const dir = fs.mkdtempSync(path.resolve('data', prefix));
      fs.chmodSync(dir, 0o711);
      dirs.push(dir);
      return dir;
    },
    removeAll(): void {
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}
