import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import { moveInPlace } from './stock.moves.js';
import type { MovedBy } from './stock.repository.js';

// Orders that left or came back move their stock through the worker (docs/stock.md, "Shipments and returns follow"):
// a shipment never changes what is available (on_hand and reserved fall together) and a return only gives stock back,
// so no confirmation can be decided on what waits here. The write that moved the orders queues one row per order
// (queueFollows); the `follow-stock` job applies them oldest first (follow). An order that left is never canceled,
// deleted or sent from another warehouse (ORDER_TRANSITIONS; a test holds it), so nothing else moves its stock
// meanwhile.

/** The NOTIFY channel that wakes the `follow-stock` job: orders left or came back. */
export const STOCK_FOLLOW_CHANNEL = 'stock_follow';

/** Rows applied per transaction of the job. */
const BATCH = 2000;

interface Waiting {
  order_id: string;
  status: string;
  changed_by: string;
  user_id: number | null;
}

/** Queues the orders' moves (`to`: each one's new status, in the order of `orderIds`) in the caller's transaction. */
export async function queueFollows(
  sequelize: Sequelize,
  transaction: Transaction,
  orderIds: number[],
  to: string[],
  by: MovedBy,
): Promise<void> {
  await select(
    sequelize,
    `WITH q AS (INSERT INTO stock_follows (order_id, status, changed_by, user_id)
                SELECT v.id, v.status, $3, $4 FROM unnest($1::bigint[], $2::text[]) AS v(id, status) RETURNING 1)
     SELECT pg_notify('${STOCK_FOLLOW_CHANNEL}', '') FROM (SELECT count(*) FROM q) n`,
    [orderIds, to, by.name, by.userId],
    transaction,
  );
}

/**
 * Applies waiting rows in the order they were queued: an order named several times moves once per row, in turns
 * (the first row of each order, then the second...), each turn one statement per author.
 */
async function apply(sequelize: Sequelize, transaction: Transaction, rows: Waiting[]): Promise<void> {
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
  for (const turn of turns)
    for (const g of turn.values()) await moveInPlace(sequelize, transaction, g.ids, g.to, g.by);
}

const RETURNING = 'RETURNING id, order_id, status, changed_by, user_id';
const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

/**
 * Applies every waiting row, oldest first, in transactions of BATCH rows: each takes its rows (a second worker waits
 * for them, then takes the next ones) and commits their ledger rows and levels with their removal. Answers how many
 * rows were applied.
 */
export async function follow(sequelize: Sequelize): Promise<number> {
  let applied = 0;
  for (;;) {
    const taken = await sequelize.transaction(async (transaction) => {
      const rows = await select<Waiting & { id: string }>(
        sequelize,
        `DELETE FROM stock_follows WHERE id IN (SELECT id FROM stock_follows ORDER BY id LIMIT ${BATCH} FOR UPDATE)
         ${RETURNING}`,
        [],
        transaction,
      );
      if (rows.length) await apply(sequelize, transaction, rows.sort(byId));
      return rows.length;
    });
    applied += taken;
    if (taken < BATCH) return applied;
  }
}

/** How many rows wait (stock:check says it: levels are the ledger's, the ledger is behind by these orders). */
export async function waitingFollows(sequelize: Sequelize): Promise<number> {
  const [row] = await select<{ n: number }>(sequelize, 'SELECT count(*)::int AS n FROM stock_follows', []);
  return row.n;
}
