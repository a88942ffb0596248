import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError } from '../errors.js';
import type { Page } from '../pagination.js';
import { authorize, namedAccountScope } from '../policy.js';
import { isRowId } from '../query.js';
import { validate } from '../validation.js';
import { outstandingQuerySchema, remittancesQuerySchema } from './cash.schemas.js';
import { outstanding, remittancesPage, remittanceView } from './cash.views.js';
import { recordRemittance } from './remittances.js';

/** Cash (issue 44, docs/cash.md): outstanding cash per carrier and the carriers' remittance statements. */

async function listRemittances(core: Core, actor: Actor, query: unknown): Promise<Page<Record<string, unknown>>> {
  authorize(actor, 'viewAny', 'cash');
  const q = validate<{ account_id?: number; page: number; per_page: number }>(remittancesQuerySchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await remittancesPage(core.db.sequelize, { ...q, accountId });
  return { data: rows, total, page: q.page, perPage: q.per_page };
}

/** One statement with its lines; another account's, or none, is not found. */
async function showRemittance(core: Core, actor: Actor, id: number) {
  authorize(actor, 'view', 'cash');
  if (!isRowId(id)) throw new NotFoundError();
  const shown = await remittanceView(core.db.sequelize, id, true, namedAccountScope(actor));
  if (!shown) throw new NotFoundError();
  return shown;
}

/** Outstanding cash per carrier, in the account's currency (null when an admin reads every account). */
async function outstandingCash(core: Core, actor: Actor, query: unknown) {
  authorize(actor, 'viewAny', 'cash');
  const q = validate<{ account_id?: number }>(outstandingQuerySchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const account = accountId === undefined ? null : await core.models.Account.findByPk(accountId);
  return { currency: account?.currency ?? null, data: await outstanding(core.db.sequelize, accountId) };
}

export function createCashService(core: Core) {
  return {
    recordRemittance: (actor: Actor, body: unknown) => recordRemittance(core, actor, body),
    remittances: (actor: Actor, query: unknown) => listRemittances(core, actor, query),
    remittance: (actor: Actor, id: number) => showRemittance(core, actor, id),
    outstanding: (actor: Actor, query: unknown) => outstandingCash(core, actor, query),
  };
}
export type CashService = ReturnType<typeof createCashService>;
