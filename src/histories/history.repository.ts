import type { Sequelize, Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import { newestFirst, placeholders, select, selectPage, type ListStatement } from '../query.js';

/** One row's move from `old` (null when the row was just created) to `status`. */
export interface StatusMove {
  account_id: number;
  id: number;
  reference: string;
  old: string | null;
  status: string;
  /** The actor's note on the change (lead history only; the queue's outcomes). */
  note?: string | null;
}

const TABLES = {
  lead: { table: 'lead_histories', id: 'lead_id', reference: 'lead_reference' },
  order: { table: 'order_histories', id: 'order_id', reference: 'order_reference' },
} as const;

/**
 * Writes the history of status moves, one statement for any number of rows, by the actor (its display name and user).
 * The one place either history table is written to, apart from the lead insert's own statement (lead.service.ts),
 * which writes the first entries of new leads in the same statement as the leads.
 */
export async function insertHistory(
  sequelize: Sequelize,
  transaction: Transaction,
  of: keyof typeof TABLES,
  moves: StatusMove[],
  actor: Actor | { name: string; userId: number | null },
): Promise<void> {
  if (moves.length === 0) return;
  const t = TABLES[of];
  const userId = 'kind' in actor ? actorUserId(actor) : actor.userId;
  // only lead history has notes: order history gets no column it does not have
  const note = of === 'lead' ? { column: ', note', value: ', v.note' } : { column: '', value: '' };
  await sequelize.query(
    `INSERT INTO ${t.table} (account_id, ${t.id}, ${t.reference}, old_status, new_status, changed_by,
      changed_by_user_id${note.column})
     SELECT v.account_id, v.id, v.ref, v.old, v.new, $6, $7${note.value}
       FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $8::text[])
         AS v(account_id, id, ref, old, new, note)`,
    {
      bind: [
        moves.map((m) => m.account_id),
        moves.map((m) => m.id),
        moves.map((m) => m.reference),
        moves.map((m) => m.old),
        moves.map((m) => m.status),
        actor.name,
        userId,
        moves.map((m) => m.note ?? null),
      ],
      transaction,
    },
  );
}

/** The two history tables share their shape; one definition serves both. */
export const HISTORY_KINDS = {
  lead: {
    table: 'lead_histories',
    ref: 'lead_reference',
    owner: 'lead_id',
    resource: 'leadHistory',
    parent: 'leads',
    // a one-record timeline also shows the agent's note; the lists keep the spec's five fields
    timelineExtra: ', note',
  },
  order: {
    table: 'order_histories',
    ref: 'order_reference',
    owner: 'order_id',
    resource: 'orderHistory',
    parent: 'orders',
    timelineExtra: '',
  },
} as const;
export type HistoryKind = keyof typeof HISTORY_KINDS;

/** One page of a history table, newest first, in `accountId` (none: every account), of one reference, since a time. */
export function listHistory(
  sequelize: Sequelize,
  kind: HistoryKind,
  f: { accountId?: number; reference?: string; since?: Date; page: number; perPage: number },
) {
  const k = HISTORY_KINDS[kind];
  const { params, add } = placeholders();
  const conds: string[] = [];
  const account = f.accountId ? add(f.accountId) : null;
  if (account) conds.push(`h.account_id = ${account}`);
  // a reference's entries are found through its lead or order (reference key, then the owner index)
  if (f.reference) {
    const inAccount = account ? ` AND p.account_id = ${account}` : '';
    conds.push(`h.${k.owner} IN (SELECT p.id FROM ${k.parent} p WHERE p.reference = ${add(f.reference)}${inAccount})`);
  }
  if (f.since) conds.push(`h.changed_at >= ${add(f.since)}`);
  const statement: ListStatement = {
    exact: f.reference || f.since ? null : { list: k.table, accountId: f.accountId || undefined },
    columns: `h.${k.ref}, h.old_status, h.new_status, h.changed_by, h.changed_at`,
    from: `${k.table} h`,
    ...newestFirst(f.accountId, 'h.changed_at', 'h.id'),
    where: conds.length ? conds.join(' AND ') : 'true',
    params,
  };
  return selectPage<Record<string, unknown> & { changed_at: Date }>(sequelize, statement, f.page, f.perPage);
}

/** A lead or order by id within `accountId` (none: every account), and its history oldest first; null if unknown. */
export async function historyOf(sequelize: Sequelize, kind: HistoryKind, id: number, accountId?: number) {
  const k = HISTORY_KINDS[kind];
  const [parent] = await select<{ id: number; reference: string; status: string; account_id: number }>(
    sequelize,
    `SELECT id, reference, status, account_id FROM ${k.parent} WHERE id = $1 ${accountId ? 'AND account_id = $2' : ''}`,
    accountId ? [id, accountId] : [id],
  );
  if (!parent) return null;
  const rows = await select<Record<string, unknown> & { changed_at: Date }>(
    sequelize,
    `SELECT ${k.ref}, old_status, new_status, changed_by, changed_at${k.timelineExtra} FROM ${k.table}
      WHERE ${k.owner} = $1 ORDER BY changed_at ASC, id ASC`,
    [id],
  );
  return { parent, rows };
}
