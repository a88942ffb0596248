import type { Transaction } from 'sequelize';
import type { Core } from '../context.js';
import { select } from '../query.js';

/**
 * The country of an account's national phone numbers (`accounts.phone_country`), or DEFAULT_COUNTRY for no account
 * (an admin's list over every account) or an unknown one.
 */
export async function phoneCountryOf(
  core: Pick<Core, 'db' | 'config'>,
  accountId: number | null | undefined,
  transaction?: Transaction,
): Promise<string> {
  const fallback = core.config.defaultCountry;
  if (!accountId) return fallback;
  const [row] = await select<{ c: string }>(
    core.db.sequelize,
    'SELECT phone_country AS c FROM accounts WHERE id = $1',
    [accountId],
    transaction,
  );
  return row?.c ?? fallback;
}
