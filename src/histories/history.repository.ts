import type { Sequelize, Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';

/** One row's move from `old` (null when the row was just created) to `status`. */
export interface StatusMove {
  account_id: number;
  id: number;
  reference: string;
  old: string | null;
  status: string;
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
  await sequelize.query(
    `INSERT INTO ${t.table} (account_id, ${t.id}, ${t.reference}, old_status, new_status, changed_by,
      changed_by_user_id)
     SELECT v.account_id, v.id, v.ref, v.old, v.new, $6, $7
       FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS v(account_id, id, ref, old, new)`,
    {
      bind: [
        moves.map((m) => m.account_id),
        moves.map((m) => m.id),
        moves.map((m) => m.reference),
        moves.map((m) => m.old),
        moves.map((m) => m.status),
        actor.name,
        userId,
      ],
      transaction,
    },
  );
}
