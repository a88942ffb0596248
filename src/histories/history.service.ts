import Joi from 'joi';
import { QueryTypes } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError } from '../errors.js';
import { offsetOf, pageKeys, type Page } from '../pagination.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId } from '../query.js';
import { isoDate, validate } from '../validation.js';

export interface HistoryEntry {
  old_status: string | null;
  new_status: string;
  changed_by: string;
  changed_at: string;
}

const listSchema = (refKey: string) =>
  Joi.object({
    ...pageKeys,
    perPage: pageKeys.per_page.optional(),
    [refKey]: Joi.string().trim().max(12),
    since: isoDate(),
    account_id: Joi.number().integer().positive(),
  });

/** The two history tables share their shape; one definition serves both. */
const KINDS = {
  lead: { table: 'lead_histories', ref: 'lead_reference', owner: 'lead_id', resource: 'leadHistory', parent: 'leads' },
  order: {
    table: 'order_histories',
    ref: 'order_reference',
    owner: 'order_id',
    resource: 'orderHistory',
    parent: 'orders',
  },
} as const;

export function createHistoryService(core: Core) {
  const { sequelize } = core.db;

  async function list(
    kind: keyof typeof KINDS,
    actor: Actor,
    query: Record<string, unknown>,
  ): Promise<Page<HistoryEntry & Record<string, unknown>>> {
    const k = KINDS[kind];
    authorize(actor, 'viewAny', k.resource);
    const q = validate<
      { page: number; per_page: number; perPage?: number; since?: Date; account_id?: number } & Record<string, string>
    >(listSchema(k.ref), query);
    const perPage = q.perPage ?? q.per_page;
    const params: unknown[] = [];
    const conds: string[] = [];
    const scope = accountScope(actor, q.account_id);
    const account = scope.account_id ? `$${params.push(scope.account_id)}` : null;
    if (account) conds.push(`account_id = ${account}`);
    // a reference's entries are found through its lead or order (reference key, then the owner index)
    if (q[k.ref]) {
      const reference = `$${params.push(q[k.ref].toUpperCase())}`;
      const inAccount = account ? ` AND account_id = ${account}` : '';
      conds.push(`${k.owner} IN (SELECT id FROM ${k.parent} WHERE reference = ${reference}${inAccount})`);
    }
    if (q.since) conds.push(`changed_at >= $${params.push(q.since)}`);
    const where = conds.length ? conds.join(' AND ') : 'true';
    const n = params.length;
    const [rows, [{ total }]] = await Promise.all([
      sequelize.query<Record<string, unknown> & { changed_at: Date }>(
        `SELECT id, account_id, ${k.ref}, old_status, new_status, changed_by, changed_at FROM ${k.table}
          WHERE ${where} ORDER BY changed_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        { bind: [...params, perPage, offsetOf(q.page, perPage)], type: QueryTypes.SELECT },
      ),
      sequelize.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${k.table} WHERE ${where}`, {
        bind: params,
        type: QueryTypes.SELECT,
      }),
    ]);
    return {
      data: rows.map(
        ({ id: _id, account_id: _a, ...r }) =>
          ({ ...r, changed_at: new Date(r.changed_at).toISOString() }) as HistoryEntry & Record<string, unknown>,
      ),
      total,
      page: q.page,
      perPage,
    };
  }

  /** Every status change of one lead or order, oldest first; another account's id is unknown. */
  async function timeline(kind: keyof typeof KINDS, actor: Actor, id: number) {
    const k = KINDS[kind];
    authorize(actor, 'view', k.resource);
    const scope = accountScope(actor);
    if (!isRowId(Number(id))) throw new NotFoundError();
    const [parent] = await sequelize.query<{ id: number; reference: string; status: string; account_id: number }>(
      `SELECT id, reference, status, account_id FROM ${k.parent}
        WHERE id = $1 ${scope.account_id ? 'AND account_id = $2' : ''}`,
      { bind: scope.account_id ? [id, scope.account_id] : [id], type: QueryTypes.SELECT },
    );
    if (!parent) throw new NotFoundError();
    const rows = await sequelize.query<HistoryEntry & { changed_at: Date }>(
      `SELECT ${k.ref}, old_status, new_status, changed_by, changed_at FROM ${k.table}
        WHERE ${k.owner} = $1 ORDER BY changed_at ASC, id ASC`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    return {
      reference: parent.reference,
      status: parent.status,
      account_id: parent.account_id,
      history: rows.map((r) => ({ ...r, changed_at: new Date(r.changed_at).toISOString() })),
    };
  }

  return {
    listLeadHistories: (actor: Actor, q: Record<string, unknown>) => list('lead', actor, q),
    listOrderHistories: (actor: Actor, q: Record<string, unknown>) => list('order', actor, q),
    leadTimeline: (actor: Actor, leadId: number) => timeline('lead', actor, leadId),
    orderTimeline: (actor: Actor, orderId: number) => timeline('order', actor, orderId),
  };
}
export type HistoryService = ReturnType<typeof createHistoryService>;
