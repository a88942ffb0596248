import Joi from 'joi';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError } from '../errors.js';
import { MAX_PER_PAGE, pageKeys, type Page } from '../pagination.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId } from '../query.js';
import { isoDate, validate } from '../validation.js';
import { HISTORY_KINDS, historyOf, listHistory, type HistoryKind } from './history.repository.js';

export interface HistoryEntry {
  old_status: string | null;
  new_status: string;
  changed_by: string;
  changed_at: string;
}

const buildListSchema = (refKey: string) =>
  Joi.object({
    ...pageKeys,
    // the dashboard's name for per_page; no default of its own, or it would override the REST per_page
    perPage: Joi.number().integer().min(1).max(MAX_PER_PAGE),
    [refKey]: Joi.string().trim().max(12),
    since: isoDate(),
    account_id: Joi.number().integer().positive(),
  });
// built once per reference key, so Joi compiles its preferences once (src/validation.ts), not per request
const listSchemas = new Map<string, Joi.ObjectSchema>();
const listSchema = (refKey: string) => {
  let schema = listSchemas.get(refKey);
  if (!schema) listSchemas.set(refKey, (schema = buildListSchema(refKey)));
  return schema;
};

type ListQuery = { page: number; per_page: number; perPage?: number; since?: Date; account_id?: number };

const withIsoTime = <T extends { changed_at: Date }>(r: T) => ({
  ...r,
  changed_at: new Date(r.changed_at).toISOString(),
});

/** One page of a history, newest first; the REST `per_page` or the dashboard's `perPage`. */
async function list(
  core: Core,
  kind: HistoryKind,
  actor: Actor,
  query: unknown,
): Promise<Page<HistoryEntry & Record<string, unknown>>> {
  const k = HISTORY_KINDS[kind];
  authorize(actor, 'viewAny', k.resource);
  const q = validate<ListQuery & Record<string, string>>(listSchema(k.ref), query);
  const perPage = q.perPage ?? q.per_page;
  const { rows, total, totalExact } = await listHistory(core.db.sequelize, kind, {
    accountId: accountScope(actor, q.account_id).account_id,
    reference: q[k.ref]?.toUpperCase(),
    since: q.since,
    page: q.page,
    perPage,
  });
  return { data: rows.map(withIsoTime) as never[], total, totalExact, page: q.page, perPage };
}

/** Every status change of one lead or order, oldest first; another account's id is unknown. */
async function timeline(core: Core, kind: HistoryKind, actor: Actor, id: number) {
  authorize(actor, 'view', HISTORY_KINDS[kind].resource);
  if (!isRowId(Number(id))) throw new NotFoundError();
  const found = await historyOf(core.db.sequelize, kind, id, accountScope(actor).account_id);
  if (!found) throw new NotFoundError();
  const { reference, status, account_id } = found.parent;
  return { reference, status, account_id, history: found.rows.map(withIsoTime) };
}

export function createHistoryService(core: Core) {
  return {
    listLeadHistories: (actor: Actor, q: unknown) => list(core, 'lead', actor, q),
    listOrderHistories: (actor: Actor, q: unknown) => list(core, 'order', actor, q),
    leadTimeline: (actor: Actor, leadId: number) => timeline(core, 'lead', actor, leadId),
    orderTimeline: (actor: Actor, orderId: number) => timeline(core, 'order', actor, orderId),
  };
}
export type HistoryService = ReturnType<typeof createHistoryService>;
