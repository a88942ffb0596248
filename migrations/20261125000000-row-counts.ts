import type { Migration } from '../src/db/migrator.js';

/** The tables whose rows are counted, and whether the count is kept per status. */
const COUNTED = { leads: true, orders: true, lead_histories: false, order_histories: false } as const;
const OPS = ['insert', 'delete', 'truncate'];

/**
 * Exact list totals without `count(*)`: every insert, update and delete of a counted table appends the change of its
 * per-account (and per-status) counts to `row_counts` in the same statement, through statement-level triggers over
 * the transition tables, so every writer (REST, panel, dashboard, import, cascades) is covered and a rolled-back
 * write leaves no trace. Appending instead of updating one row per count means concurrent writers of one account
 * never wait on each other or deadlock; a job folds the appended rows together (`fold_row_counts`). A count is the
 * sum of its rows. There is no foreign key to accounts: deleting an account appends the negative counts of its rows.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE row_counts (
      list text NOT NULL,
      account_id integer NOT NULL,
      status text NOT NULL DEFAULT '',
      n bigint NOT NULL
    );
    CREATE INDEX row_counts_list_idx ON row_counts (list, account_id, status);

    ${countFunction('count_rows_by_status', 'status')}
    ${countFunction('count_rows', "''")}

    CREATE FUNCTION forget_row_counts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM row_counts WHERE list = TG_TABLE_NAME;
      RETURN NULL;
    END $$;

    CREATE FUNCTION fold_row_counts() RETURNS void LANGUAGE sql AS $$
      WITH many AS (SELECT list, account_id, status FROM row_counts GROUP BY 1, 2, 3 HAVING count(*) > 1),
        gone AS (DELETE FROM row_counts c USING many m
                  WHERE (c.list, c.account_id, c.status) = (m.list, m.account_id, m.status)
              RETURNING c.list, c.account_id, c.status, c.n)
      INSERT INTO row_counts (list, account_id, status, n)
        SELECT list, account_id, status, sum(n) FROM gone GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
    $$;
  `);
  for (const [table, byStatus] of Object.entries(COUNTED)) {
    const count = byStatus ? 'count_rows_by_status' : 'count_rows';
    await db.query(`
      CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ${count}();
      CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ${count}();
      CREATE TRIGGER ${table}_count_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION forget_row_counts();
      INSERT INTO row_counts (list, account_id, status, n)
        SELECT '${table}', account_id, ${byStatus ? 'status' : "''"}, count(*) FROM ${table} GROUP BY 1, 2, 3;
    `);
    // Only a table counted per status changes its counts on update.
    if (byStatus)
      await db.query(`
        CREATE TRIGGER ${table}_count_update AFTER UPDATE ON ${table}
          REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
          FOR EACH STATEMENT EXECUTE FUNCTION count_rows_by_status();`);
    // The lead batch insert runs with session_replication_role = replica (lead-batch.repository.ts), which skips
    // ordinary triggers: the counts must fire always.
    for (const op of byStatus ? [...OPS, 'update'] : OPS)
      await db.query(`ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${table}_count_${op}`);
  }
};

/**
 * The trigger function that appends a statement's count changes per account and `status` (a column, or '' for a
 * table counted per account only). An update appends only what moved between statuses.
 */
function countFunction(name: string, status: string): string {
  const rows = (table: string, sign: string) => `SELECT account_id, ${status} AS status, ${sign}1 AS d FROM ${table}`;
  const append = (from: string) => `
        INSERT INTO row_counts (list, account_id, status, n)
          SELECT TG_TABLE_NAME, account_id, status, sum(d) FROM (${from}) r GROUP BY 1, 2, 3 HAVING sum(d) <> 0;`;
  return `
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN ${append(rows('new_rows', ''))}
      ELSIF TG_OP = 'DELETE' THEN ${append(rows('old_rows', '-'))}
      ELSE ${append(`${rows('new_rows', '')} UNION ALL ${rows('old_rows', '-')}`)}
      END IF;
      RETURN NULL;
    END $$;`;
}

export const down: Migration = async ({ context: db }) => {
  for (const table of Object.keys(COUNTED))
    for (const op of [...OPS, 'update']) await db.query(`DROP TRIGGER IF EXISTS ${table}_count_${op} ON ${table}`);
  await db.query(`
    DROP FUNCTION fold_row_counts();
    DROP FUNCTION forget_row_counts();
    DROP FUNCTION count_rows();
    DROP FUNCTION count_rows_by_status();
    DROP TABLE row_counts;`);
};
