import type { Core } from '../context.js';
import { select } from '../query.js';
import { FALLBACK_ZONE } from '../time-zones.js';

/** The IANA zone an account's times are shown, typed and exported in (`accounts.time_zone`); UTC for none. */
export async function timeZoneOf(core: Pick<Core, 'db'>, accountId: number | null | undefined): Promise<string> {
  if (!accountId) return FALLBACK_ZONE;
  const [row] = await select<{ z: string }>(core.db.sequelize, 'SELECT time_zone AS z FROM accounts WHERE id = $1', [
    accountId,
  ]);
  return row?.z ?? FALLBACK_ZONE;
}
