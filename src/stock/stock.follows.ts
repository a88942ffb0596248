import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import { moveInPlace } from './stock.moves.js';
import { isRetryable, type MovedBy } from './stock.repository.js';

// Orders that left or came back move their stock through the worker (docs/stock.md, "Shipments and returns follow"):
// a shipment never changes what is available (on_hand and reserved fall together) and a return only gives stock back,
// so no confirmation can be decided on what waits here. The write that moved the orders queues one row per order
// (queueFollows); the `follow-stock` job applies them oldest first (follow). A count or an adjustment, which reads
// on_hand, applies its account's waiting rows first (applyWaiting). An order that left is never canceled, deleted or
// sent from another warehouse (ORDER_TRANSITIONS; a test holds it), so nothing else moves its stock meanwhile.

/** The NOTIFY channel that wakes the `follow-stock` job: orders left or came back. */
export const STOCK_FOLLOW_CHANNEL = 'stock_follow';

/** Rows applied per transaction of the job: the levels they touch stay locked until it commits. */
const BATCH = 500;

interface Waiting {
  id: string;
  order_id: string;
  status: string;
  changed_by: string;
  user_id: number | null;
}

/** Queues the orders' moves (each one's new status) in the caller's transaction, and wakes the job at its commit. */
export async function queueFollows(
  sequelize: Sequelize,
  transaction: Transaction,
  moves: { orderId: number; accountId: number; to: string }[],
  by: MovedBy,
): Promise<void> {
  await select(
    sequelize,
    `WITH q AS (INSERT INTO stock_follows (account_id, order_id, status, changed_by, user_id)
                SELECT v.*, $4, $5 FROM unnest($1::int[], $2::bigint[], $3::text[]) AS v RETURNING 1)
     SELECT pg_notify('${STOCK_FOLLOW_CHANNEL}', '') FROM (SELECT count(*) FROM q) n`,
    [moves.map((m) => m.accountId), moves.map((m) => m.orderId), moves.map((m) => m.to), by.name, by.userId],
    transaction,
  );
}

/** What a taken row answers: its login only while it exists (one deleted meanwhile leaves no id in the ledger). */
const RETURNING = `RETURNING id, order_id, status, changed_by,
                   (SELECT u.id FROM users u WHERE u.id = stock_follows.user_id) AS user_id`;

/**
 * Applies taken rows in the order they were queued: the levels they touch are locked first, in key order (as every
 * writer of levels locks them), then an order named several times moves once per row, in turns (the first row of each
 * order, then the second...), each turn one statement per author.
 */
async function apply(sequelize: Sequelize, transaction: Transaction, taken: Waiting[]): Promise<void> {
  const rows = [...taken].sort((a, b) => Number(a.id) - Number(b.id));
  await select(
    sequelize,
    `SELECT 1 FROM stock_levels s
      WHERE (s.account_id, s.product_id, s.warehouse_id) IN (
        SELECT o.account_id, op.product_id, w.id FROM orders o
          JOIN order_products op ON op.order_id = o.id AND op.product_id IS NOT NULL
          JOIN warehouses w ON w.account_id = o.account_id
           AND (w.id = o.warehouse_id OR (o.warehouse_id IS NULL AND w.is_default))
         WHERE o.id = ANY ($1::bigint[]))
      ORDER BY s.account_id, s.product_id, s.warehouse_id FOR UPDATE OF s`,
    [[...new Set(rows.map((r) => r.order_id))]],
    transaction,
  );
  const turns: Map<string, { ids: number[]; to: string[]; by: MovedBy }>[] = [];
  const seen = new Map<string, number>();
  for (const r of rows) {
    const turn = seen.get(r.order_id) ?? 0;
    seen.set(r.order_id, turn + 1);
    turns[turn] ??= new Map();
    const key = `${r.user_id ?? ''} ${r.changed_by}`;
    const group = turns[turn].get(key) ?? { ids: [], to: [], by: { name: r.changed_by, userId: r.user_id } };
    group.ids.push(Number(r.order_id));
    group.to.push(r.status);
    turns[turn].set(key, group);
  }
  for (const turn of turns) for (const g of turn.values()) await moveInPlace(sequelize, transaction, g.ids, g.to, g.by);
}

/** Applies what waits for the account, in the caller's transaction (before a count or an adjustment reads on_hand). */
export async function applyWaiting(sequelize: Sequelize, transaction: Transaction, accountId: number): Promise<void> {
  const rows = await select<Waiting>(
    sequelize,
    `DELETE FROM stock_follows WHERE account_id = $1 AND error IS NULL ${RETURNING}`,
    [accountId],
    transaction,
  );
  if (rows.length) await apply(sequelize, transaction, rows);
}

/** Takes and applies the oldest BATCH rows (or the one row `id`) in one transaction; answers how many it took. */
const takeAndApply = (sequelize: Sequelize, id?: string) =>
  sequelize.transaction(async (transaction) => {
    const rows = await select<Waiting>(
      sequelize,
      `DELETE FROM stock_follows
        WHERE id IN (SELECT id FROM stock_follows WHERE error IS NULL AND ($1::bigint IS NULL OR id = $1)
                      ORDER BY id LIMIT ${BATCH} FOR UPDATE)
       ${RETURNING}`,
      [id ?? null],
      transaction,
    );
    if (rows.length) await apply(sequelize, transaction, rows);
    return rows.length;
  });

/**
 * A batch that failed for one of its rows (a level out of range) is applied again one row per transaction: the rows
 * that can be go on, one that cannot keeps its error and is skipped from then on (stock:check names it), so one order
 * never holds up every account's.
 */
async function oneByOne(sequelize: Sequelize): Promise<number> {
  const ids = await select<{ id: string }>(
    sequelize,
    `SELECT id FROM stock_follows WHERE error IS NULL ORDER BY id LIMIT ${BATCH}`,
    [],
  );
  for (const { id } of ids)
    try {
      await takeAndApply(sequelize, id);
    } catch (err) {
      if (isRetryable(err)) throw err;
      const message = (err as Error).message.slice(0, 1000);
      await select(sequelize, 'UPDATE stock_follows SET error = $2 WHERE id = $1', [id, message]);
    }
  return ids.length;
}

/**
 * Applies every waiting row, oldest first, BATCH a transaction: each takes its rows (a second worker waits for them,
 * then takes the next ones) and commits their ledger rows and levels with their removal; a deadlock or a serialization
 * failure is tried again (3 times). Goes on until a look finds nothing. Answers how many rows it took.
 */
export async function follow(sequelize: Sequelize): Promise<number> {
  let taken = 0;
  for (let tries = 0; ;) {
    let n: number;
    try {
      n = await takeAndApply(sequelize).catch((err) => (isRetryable(err) ? Promise.reject(err) : oneByOne(sequelize)));
    } catch (err) {
      if (!isRetryable(err) || ++tries > 3) throw err;
      continue;
    }
    taken += n;
    if (n === 0) return taken;
  }
}

/** What waits (stock:check says it): how many rows, and the rows the job could not apply, with their error. */
export async function waitingFollows(sequelize: Sequelize) {
  const [row] = await select<{ waiting: number }>(
    sequelize,
    'SELECT count(*)::int AS waiting FROM stock_follows WHERE error IS NULL',
    [],
  );
  const failed = await select<{ order_id: string; status: string; error: string }>(
    sequelize,
    'SELECT order_id, status, error FROM stock_follows WHERE error IS NOT NULL ORDER BY id LIMIT 100',
    [],
  );
  return { waiting: row.waiting, failed };
}
