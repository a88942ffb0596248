import type { Sequelize } from 'sequelize';
import type { Actor } from './actor.js';
import { ValidationError } from './errors.js';
import { targetAccount } from './policy.js';
import { isRowId, select } from './query.js';

/** Whether the account exists (an admin names one). */
export async function accountExists(sequelize: Sequelize, accountId: number): Promise<boolean> {
  if (!isRowId(accountId)) return false;
  const rows = await select(sequelize, 'SELECT 1 FROM accounts WHERE id = $1', [accountId]);
  return rows.length > 0;
}

/**
 * The account a new row goes to, for every create of every entry point (REST, dashboard, panel, import): a seller's or
 * an agent's own account, whatever account_id the request names (tenancy comes from the server); for an admin, the
 * account named, which must exist (an unknown one is "invalid", never a database error), else the admin's own.
 */
export async function newRowAccount(sequelize: Sequelize, actor: Actor, requested?: number | null): Promise<number> {
  const id = targetAccount(actor, requested);
  if (id !== actor.accountId && !(await accountExists(sequelize, id)))
    throw ValidationError.single('account_id', 'The selected account_id is invalid.');
  return id;
}
