import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';

/**
 * The country of an account's national phone numbers (`accounts.phone_country`), or `fallback` (DEFAULT_COUNTRY) for
 * no account (an admin's list over every account) or an unknown one.
 */
export async function phoneCountryOf(
  sequelize: Sequelize,
  accountId: number | null | undefined,
  fallback: string,
  transaction?: Transaction,
): Promise<string> {
  if (!accountId) return fallback;
  const [row] = await select<{ c: string }>(
    sequelize,
    'SELECT phone_country AS c FROM accounts WHERE id = $1',
    [accountId],
    transaction,
  );
  return row?.c ?? fallback;
}
