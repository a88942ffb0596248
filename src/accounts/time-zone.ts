import type { Core } from '../context.js';
import { isRowId, select } from '../query.js';
import { FALLBACK_ZONE } from '../time-zones.js';

/**
 * The IANA zone an account's times are shown, typed and exported in (`accounts.time_zone`); UTC for none, and for an id
 * no row can have (an admin's `account_id=2147483648` is refused by the service it names, never a database error).
 */
export async function timeZoneOf(core: Pick<Core, 'db'>, accountId: number | null | undefined): Promise<string> {
  if (!accountId || !isRowId(accountId)) return FALLBACK_ZONE;
  const [row] = await select<{ z: string }>(core.db.sequelize, 'SELECT time_zone AS z FROM accounts WHERE id = $1', [
    accountId,
  ]);
  return row?.z ?? FALLBACK_ZONE;
}
