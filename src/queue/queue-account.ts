import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { isSystemWide } from '../policy.js';
import { isRowId } from '../query.js';
import { keepWorkedAccount, workedAccount } from './queue-account.repository.js';

/**
 * Which account an admin's work queue opens on (issue 41). An admin works every account's queue and names one; the
 * panel remembers the last one per user (table queue_accounts), so the queue opens there at the next visit, after a
 * new login too, rather than on the admin's own account. Sellers and agents always work their own account: nothing is
 * kept or read for them, and no request can change it (src/queue/queue.service.ts, `queueAccount`).
 */
const choosesAccount = (actor: Actor): actor is Extract<Actor, { kind: 'user' }> =>
  actor.kind === 'user' && isSystemWide(actor);

/** The account the admin last worked in the queue, or null (none yet, it was deleted, or not an admin). */
export async function lastQueueAccount(core: Core, actor: Actor): Promise<number | null> {
  return choosesAccount(actor) ? workedAccount(core.db.sequelize, actor.userId) : null;
}

/** Remembers the account an admin works now (after the queue accepted it); nothing for anyone else. */
export async function rememberQueueAccount(core: Core, actor: Actor, accountId: number): Promise<void> {
  if (choosesAccount(actor) && isRowId(accountId)) await keepWorkedAccount(core.db.sequelize, actor.userId, accountId);
}
