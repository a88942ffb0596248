import { newRowAccount } from '../chosen-account.js';
import { phoneCountryOf } from '../accounts/phone-country.js';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { normalizePhone, phoneSearchDigits } from '../phone.js';
import type { Page } from '../pagination.js';
import { accountScope, authorize, namedAccountScope } from '../policy.js';
import { validate } from '../validation.js';
import {
  blockedId,
  blockedPage,
  deleteBlocked,
  findBlocked,
  insertBlocked,
  type BlockedPhoneRow,
} from './blocklist.repository.js';
import {
  blocklistQuerySchema,
  blockSchema,
  type BlockedPhoneView,
  type BlockInput,
  type BlocklistQuery,
} from './blocklist.schemas.js';

export type { BlockedPhoneView } from './blocklist.schemas.js';

export function blockedView(r: BlockedPhoneRow): BlockedPhoneView {
  return {
    id: r.id,
    account_id: r.account_id,
    phone: r.phone,
    phone_normalized: r.phone_normalized,
    reason: r.reason,
    created_by: r.created_by,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** Why a phone cannot be blocked: without an E.164 form no new lead's phone could ever be matched with it. */
export const unmatchableMessage = (country: string) =>
  `The phone is not a possible phone number (national numbers of ${country}, or international with +): ` +
  'it could never match a lead, so it cannot be blocked.';
export const ALREADY_BLOCKED = 'The phone is already blocked.';

/** The entry `id` in the actor's scope, or NotFoundError (unknown and another account's alike). */
async function entryInScope(core: Core, actor: Actor, id: unknown): Promise<BlockedPhoneRow> {
  const wanted = blockedId(id);
  const row = wanted === null ? null : await findBlocked(core.db.sequelize, wanted, accountScope(actor).account_id);
  if (!row) throw new NotFoundError();
  return row;
}

/** One page of the account's blocklist (an admin's: of the account named, or of every account), newest first. */
async function list(core: Core, actor: Actor, query: unknown): Promise<Page<BlockedPhoneView>> {
  authorize(actor, 'viewAny', 'blocklist');
  const q = validate<BlocklistQuery>(blocklistQuerySchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const digits = q.phone ? phoneSearchDigits(q.phone, await phoneCountryOf(core, accountId)) : undefined;
  // a search with no digit in it matches nothing rather than everything
  if (q.phone && !digits) return { data: [], total: 0, page: q.page, perPage: q.per_page };
  const { rows, total } = await blockedPage(core.db.sequelize, {
    accountId,
    digits,
    page: q.page,
    perPage: q.per_page,
  });
  return { data: rows.map(blockedView), total, page: q.page, perPage: q.per_page };
}

async function show(core: Core, actor: Actor, id: unknown): Promise<BlockedPhoneView> {
  authorize(actor, 'view', 'blocklist');
  const row = await entryInScope(core, actor, id);
  authorize(actor, 'view', 'blocklist', row);
  return blockedView(row);
}

/**
 * Blocks a phone of the account: read in the account's country into E.164, the form new leads are matched on. A phone
 * without one, or one the account has blocked already, is a 422 and nothing changes.
 */
async function block(core: Core, actor: Actor, body: unknown): Promise<BlockedPhoneView> {
  authorize(actor, 'create', 'blocklist');
  const v = validate<BlockInput>(blockSchema, body);
  if (v.account_id !== undefined) namedAccountScope(actor, v.account_id);
  const account_id = await newRowAccount(core.db.sequelize, actor, v.account_id);
  authorize(actor, 'create', 'blocklist', { account_id });
  const country = await phoneCountryOf(core, account_id);
  const phone = normalizePhone(v.phone, country);
  if (!phone) throw ValidationError.single('phone', unmatchableMessage(country));
  const row = await insertBlocked(core.db.sequelize, {
    account_id,
    ...phone,
    reason: v.reason,
    created_by: actor.name,
    created_by_user_id: actorUserId(actor),
  });
  if (!row) throw ValidationError.single('phone', ALREADY_BLOCKED);
  core.logger.info({ account_id, blocked_phone_id: row.id }, 'phone blocked');
  return blockedView(row);
}

/** Unblocks: the entry goes; leads it canceled stay as they are (unblocking changes nothing already stored). */
async function unblock(core: Core, actor: Actor, id: unknown): Promise<{ deleted: number }> {
  authorize(actor, 'delete', 'blocklist');
  const row = await entryInScope(core, actor, id);
  authorize(actor, 'delete', 'blocklist', row);
  // another request may have unblocked it meanwhile: gone either way, so it answers like an unknown one
  if (!(await deleteBlocked(core.db.sequelize, row.id, row.account_id))) throw new NotFoundError();
  core.logger.info({ account_id: row.account_id, blocked_phone_id: row.id }, 'phone unblocked');
  return { deleted: 1 };
}

/** An account's blocklist (issue 33, docs/decisions.md "Blocklist"); the lead insert reads it (lead-batch). */
export function createBlocklistService(core: Core) {
  return {
    list: (actor: Actor, query?: unknown) => list(core, actor, query),
    show: (actor: Actor, id: unknown) => show(core, actor, id),
    block: (actor: Actor, body: unknown) => block(core, actor, body),
    unblock: (actor: Actor, id: unknown) => unblock(core, actor, id),
  };
}

export type BlocklistService = ReturnType<typeof createBlocklistService>;
