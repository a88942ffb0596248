import { QueryTypes, type Sequelize } from 'sequelize';

/** The account the user last worked in the panel's queue, if it still exists (a deleted one takes its row along). */
export async function workedAccount(sequelize: Sequelize, userId: number): Promise<number | null> {
  const [row] = await sequelize.query<{ worked_account_id: number }>(
    'SELECT worked_account_id FROM queue_accounts WHERE user_id = $1',
    { bind: [userId], type: QueryTypes.SELECT },
  );
  return row?.worked_account_id ?? null;
}

/** Keeps the account the user works now; an account gone meanwhile is not kept (no foreign-key failure). */
export async function keepWorkedAccount(sequelize: Sequelize, userId: number, accountId: number): Promise<void> {
  await sequelize.query(
    `INSERT INTO queue_accounts (user_id, worked_account_id)
       SELECT $1, id FROM accounts WHERE id = $2
     ON CONFLICT (user_id) DO UPDATE SET worked_account_id = EXCLUDED.worked_account_id, chosen_at = now()
       WHERE queue_accounts.worked_account_id IS DISTINCT FROM EXCLUDED.worked_account_id`,
    { bind: [userId, accountId] },
  );
}
