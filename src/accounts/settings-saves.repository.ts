import { QueryTypes, type Sequelize } from 'sequelize';
import { RateLimitedError } from '../errors.js';

export const SETTINGS_BUDGET_MESSAGE = "Too many saves of this account's settings. Please wait a minute.";

/**
 * Spends one of an account's `perMinute` settings saves (ACCOUNT_SETTINGS_PER_MINUTE) of the current minute, whoever
 * saves, or refuses the save with a 429 (RateLimitedError, with the seconds left in the minute) before any work. One
 * statement on its own (no transaction of the save holds the counter's row), one row per account. A minute never goes
 * back: a row's minute later than the database's clock (a clock set back) keeps counting until it has passed.
 */
export async function spendSettingsSave(
  sequelize: Sequelize,
  accountId: number,
  perMinute: number,
  refused: () => void,
): Promise<void> {
  // (a write: on the primary, never on the read pool of select())
  const [row] = await sequelize.query<{ saves: number; left: number }>(
    `INSERT INTO account_settings_saves AS s (account_id, minute, saves)
       VALUES ($1, date_trunc('minute', clock_timestamp()), 1)
     ON CONFLICT (account_id) DO UPDATE
       SET saves = CASE WHEN s.minute >= EXCLUDED.minute THEN s.saves + 1 ELSE 1 END,
           minute = greatest(s.minute, EXCLUDED.minute)
     RETURNING saves,
       ceil(extract(epoch FROM minute + interval '1 minute' - clock_timestamp()))::int AS left`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  if (row!.saves <= perMinute) return;
  refused();
  throw new RateLimitedError(SETTINGS_BUDGET_MESSAGE, Math.max(1, row!.left));
}
