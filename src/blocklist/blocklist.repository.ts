import { QueryTypes, type Sequelize } from 'sequelize';
import { isRowId, select } from '../query.js';
import { likeContains } from '../like-pattern.js';
import type { BlockedPhoneView } from './blocklist.schemas.js';

/** A blocklist row as read: its view with the time as a Date. */
export type BlockedPhoneRow = Omit<BlockedPhoneView, 'created_at'> & { created_at: Date };

const COLUMNS = 'id, account_id, phone, phone_normalized, reason, created_by, created_at';

/** A row id from unknown input (`'12'`, 12), or null: a value no row can have names none and never reaches SQL. */
export function blockedId(id: unknown): number | null {
  const n = typeof id === 'string' && /^[0-9]{1,10}$/.test(id) ? Number(id) : typeof id === 'number' ? id : NaN;
  return isRowId(n) ? n : null;
}

/**
 * Blocks a phone unless the account has it blocked already (answers null then). The unique key decides, so two blocks
 * of one phone at once store one row and the other is told "already blocked".
 */
export async function insertBlocked(
  sequelize: Sequelize,
  attrs: Omit<BlockedPhoneRow, 'id' | 'created_at'> & { created_by_user_id: number | null },
): Promise<BlockedPhoneRow | null> {
  // a write: on the primary, never the read pool
  const [row] = await sequelize.query<BlockedPhoneRow>(
    `INSERT INTO blocked_phones (account_id, phone_normalized, phone, reason, created_by, created_by_user_id)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, phone_normalized) DO NOTHING
     RETURNING ${COLUMNS}`,
    {
      bind: [
        attrs.account_id,
        attrs.phone_normalized,
        attrs.phone,
        attrs.reason,
        attrs.created_by,
        attrs.created_by_user_id,
      ],
      type: QueryTypes.SELECT,
    },
  );
  return row ?? null;
}

/** An entry by id within `accountId` (none: any account); null when unknown. */
export async function findBlocked(
  sequelize: Sequelize,
  id: number,
  accountId: number | undefined,
): Promise<BlockedPhoneRow | null> {
  const [row] = await select<BlockedPhoneRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM blocked_phones WHERE id = $1 AND ($2::int IS NULL OR account_id = $2)`,
    [id, accountId ?? null],
  );
  return row ?? null;
}

/** One page of entries, newest first, of `accountId` (none: every account), optionally whose E.164 holds `digits`. */
export async function blockedPage(
  sequelize: Sequelize,
  f: { accountId?: number; digits?: string; page: number; perPage: number },
): Promise<{ rows: BlockedPhoneRow[]; total: number }> {
  const rows = await select<BlockedPhoneRow & { total: number }>(
    sequelize,
    `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM blocked_phones
      WHERE ($1::int IS NULL OR account_id = $1) AND ($2::text IS NULL OR phone_normalized LIKE $2)
      ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
    [f.accountId ?? null, f.digits ? likeContains(f.digits) : null, (f.page - 1) * f.perPage, f.perPage],
  );
  // past the last page no row carries the count: ask for it alone
  if (rows.length || f.page === 1) return { rows: rows.map(({ total: _t, ...r }) => r), total: rows[0]?.total ?? 0 };
  const [{ total }] = await select<{ total: number }>(
    sequelize,
    `SELECT count(*)::int AS total FROM blocked_phones
      WHERE ($1::int IS NULL OR account_id = $1) AND ($2::text IS NULL OR phone_normalized LIKE $2)`,
    [f.accountId ?? null, f.digits ? likeContains(f.digits) : null],
  );
  return { rows: [], total };
}

/** Unblocks: deletes the entry within `accountId` (none: any account); answers how many rows went (0 or 1). */
export async function deleteBlocked(sequelize: Sequelize, id: number, accountId: number | undefined): Promise<number> {
  const rows = await sequelize.query<{ id: number }>(
    'DELETE FROM blocked_phones WHERE id = $1 AND ($2::int IS NULL OR account_id = $2) RETURNING id',
    { bind: [id, accountId ?? null], type: QueryTypes.SELECT },
  );
  return rows.length;
}
