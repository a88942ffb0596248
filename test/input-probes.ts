import { expect } from 'chai';
import { getCtx } from './hooks.js';

/** Nothing enumerable was added to the built-in prototypes or to Object itself (what a pollution leaves). */
export function expectNoPollution(what: string): void {
  const added = [Object.prototype, Object, Array.prototype, Function.prototype].flatMap((o) => Object.keys(o));
  expect(added, `${what} polluted a prototype`).to.deep.equal([]);
  expect(({} as Record<string, unknown>).polluted, what).to.equal(undefined);
}

let tablesOnce: Promise<{ t: string; u: boolean }[]> | null = null;

/** The rows of every table that has an account, for this account: count and latest change, one statement. */
export async function fingerprint(accountId: number): Promise<string> {
  const { sequelize } = getCtx().db;
  const tables = await (tablesOnce ??= sequelize.query(
    // a token's last use moves its updated_at: tokens are counted only
    `SELECT table_name AS t, bool_or(column_name = 'updated_at' AND table_name <> 'api_tokens') AS u
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN (SELECT table_name
        FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'account_id')
      GROUP BY table_name ORDER BY table_name`,
    { type: 'SELECT' },
  ) as Promise<{ t: string; u: boolean }[]>);
  const parts = tables.map(
    ({ t, u }) => `(SELECT count(*) || ':' || ${u ? "coalesce(max(updated_at)::text, '')" : "''"}
      FROM "${t}" WHERE account_id = :a) AS "${t}"`,
  );
  const [row] = await sequelize.query(`SELECT ${parts.join(', ')}, (SELECT count(*) FROM agenda_jobs) AS jobs`, {
    replacements: { a: accountId },
    type: 'SELECT',
  });
  return JSON.stringify(row);
}
