import net from 'node:net';
import { QueryTypes } from 'sequelize';
import type { TestAccount } from './factories.js';
import { getCtx } from './hooks.js';

/** Helpers of the Idempotency-Key tests (test/integration/idempotency*.test.ts). */

let phoneSeq = 0;
/** A valid lead (or order) item of `acc` with a phone of its own. */
export const item = (acc: TestAccount, over: Record<string, unknown> = {}) => ({
  phone: `+2126${String(10_000_000 + ((Date.now() + ++phoneSeq * 7919) % 89_999_999)).padStart(8, '0')}`,
  full_name: 'Amina Benali',
  city: 'Casablanca',
  products: [{ sku: acc.skus.active[0], quantity: 2, price: 150 }],
  ...over,
});

export const countOf = async (table: 'leads' | 'orders', accountId: number): Promise<number> => {
  const [{ n }] = await getCtx().db.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  return n;
};

export interface KeyRow {
  endpoint: string;
  key: string;
  status_code: number;
  response: unknown;
  completed: boolean;
}

export const keysOf = (accountId: number) =>
  getCtx().db.sequelize.query<KeyRow>(
    `SELECT endpoint, key, status_code, response, completed_at IS NOT NULL AS completed
       FROM idempotency_keys WHERE account_id = $1 ORDER BY id`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );

/** Moves the account's keys `interval` into the past, as if that time had gone by. */
export const ageKeys = (accountId: number, interval: string) =>
  getCtx().db.sequelize.query(
    `UPDATE idempotency_keys SET created_at = created_at - $2::interval, completed_at = completed_at - $2::interval
      WHERE account_id = $1`,
    { bind: [accountId, interval] },
  );

/**
 * Sends a POST with header lines written byte for byte (what fetch refuses to send: NUL, a header twice) and answers
 * the status line's code and the body.
 */
export function rawPost(
  url: string,
  path: string,
  lines: string[],
  body: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const head = [
        `POST /api/web/1.0${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Content-Type: application/json',
        'Accept: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        ...lines,
      ];
      socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}
