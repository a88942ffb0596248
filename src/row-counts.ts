import { Transaction, type Sequelize } from 'sequelize';
import type { Core } from './context.js';
import { select, type CountedList } from './query.js';

/** Every counted table, and the expression its rows are counted by besides the account. */
const COUNTED: Record<CountedList, string> = {
  leads: 'status',
  orders: 'status',
  lead_histories: "''",
  order_histories: "''",
};

/** A count `row_counts` keeps that differs from the rows themselves. */
export interface CountMismatch {
  list: CountedList;
  account_id: number;
  status: string;
  counted: number;
  kept: number;
}

const ACTUAL = Object.entries(COUNTED)
  .map(([t, by]) => `SELECT '${t}' AS list, account_id, ${by} AS status, count(*) AS n FROM ${t} GROUP BY 2, 3`)
  .join(' UNION ALL ');

/** Folds the appended count changes into one row per count, so reading a total stays a handful of rows. */
export async function foldRowCounts(sequelize: Sequelize): Promise<void> {
  await sequelize.query('SELECT fold_row_counts()');
}

/**
 * Recomputes every count with `count(*)` and answers those `row_counts` disagrees with. Both sides are read in one
 * snapshot, so writes running meanwhile cannot show up as a difference.
 */
export function checkRowCounts(sequelize: Sequelize): Promise<CountMismatch[]> {
  return sequelize.transaction(
    { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ, readOnly: true },
    (transaction) =>
      select<CountMismatch>(
        sequelize,
        `WITH actual AS (${ACTUAL}),
              kept AS (SELECT list, account_id, status, sum(n) AS n FROM row_counts GROUP BY 1, 2, 3)
         SELECT coalesce(a.list, k.list) AS list, coalesce(a.account_id, k.account_id) AS account_id,
                coalesce(a.status, k.status) AS status, coalesce(a.n, 0)::int AS counted, coalesce(k.n, 0)::int AS kept
           FROM actual a FULL JOIN kept k ON (a.list, a.account_id, a.status) = (k.list, k.account_id, k.status)
          WHERE coalesce(a.n, 0) <> coalesce(k.n, 0)
          ORDER BY 1, 2, 3`,
        [],
        transaction,
      ),
  );
}

/** Replaces every kept count by a recount, with writes to the counted tables held off meanwhile. */
export async function recountRows(sequelize: Sequelize): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    await sequelize.query(`LOCK TABLE ${Object.keys(COUNTED).join(', ')} IN SHARE MODE`, { transaction });
    await sequelize.query('DELETE FROM row_counts', { transaction });
    await sequelize.query(`INSERT INTO row_counts (list, account_id, status, n) ${ACTUAL}`, { transaction });
  });
}

/** What jobs and the CLI do with the counts: fold them, and check them (repairing on request). */
export function createRowCountService(core: Core) {
  const { sequelize } = core.db;
  return {
    fold: () => foldRowCounts(sequelize),
    async check(opts: { repair: boolean }): Promise<CountMismatch[]> {
      const wrong = await checkRowCounts(sequelize);
      if (wrong.length === 0) return wrong;
      core.logger.error({ wrong: wrong.slice(0, 20), repair: opts.repair }, 'kept row counts differ from the rows');
      if (opts.repair) await recountRows(sequelize);
      return wrong;
    },
  };
}
