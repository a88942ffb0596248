import { QueryTypes, type Sequelize } from 'sequelize';
import { deleteInBatches } from './webhook.repository.js';

/** The classid of the fan-out's advisory locks; the objid is the account (one fan-out per account at a time). */
const FANOUT_LOCK_CLASS = 2_026_120_201;

/** Events fanned out per account and transaction: bounds the transaction whatever the backlog. */
export const FANOUT_BATCH = 500;

/** The accounts with events not fanned out yet (at most `limit`, lowest id first). */
async function accountsWithEvents(sequelize: Sequelize, limit: number): Promise<number[]> {
  // a skip scan over the partial index: one probe per account, however many events wait
  const rows = await sequelize.query<{ account_id: number }>(
    `WITH RECURSIVE a AS (
       (SELECT account_id FROM webhook_events WHERE fanned_out_at IS NULL ORDER BY account_id LIMIT 1)
       UNION ALL
       SELECT (SELECT e.account_id FROM webhook_events e
                WHERE e.fanned_out_at IS NULL AND e.account_id > a.account_id ORDER BY e.account_id LIMIT 1)
         FROM a WHERE a.account_id IS NOT NULL)
     SELECT account_id FROM a WHERE account_id IS NOT NULL LIMIT $1`,
    { bind: [limit], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.account_id);
}

/**
 * Fans out the account's oldest `batch` events not fanned out yet: one pending delivery per active endpoint of the
 * account that subscribes to the event and existed when the change was made, in event order (delivery ids follow
 * it: the order of a sequence), and marks the events, all in one transaction. Answers the events fanned out, or
 * null when another worker is fanning the account out right now (it is skipped, not waited for).
 *
 * Lock order: the account's advisory lock, then its endpoint rows (KEY SHARE, so an endpoint being deleted is waited
 * for and then left out, never met by a foreign-key error), then new delivery rows; deleting an endpoint takes its
 * row, then its deliveries; recording an attempt takes the endpoint row first too. One order: no deadlock.
 */
export async function fanOutAccount(sequelize: Sequelize, accountId: number, batch = FANOUT_BATCH) {
  return sequelize.transaction(async (transaction) => {
    const [{ locked }] = await sequelize.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1::int, $2::int) AS locked',
      { bind: [FANOUT_LOCK_CLASS, accountId], type: QueryTypes.SELECT, transaction },
    );
    if (!locked) return null;
    const endpoints = await sequelize.query<{ id: number }>(
      `SELECT id FROM webhook_endpoints WHERE account_id = $1 AND active ORDER BY id FOR KEY SHARE`,
      { bind: [accountId], type: QueryTypes.SELECT, transaction },
    );
    const [{ events }] = await sequelize.query<{ events: number }>(
      `WITH batch AS (
         SELECT id, event, sequence_key, payload, created_at FROM webhook_events
          WHERE account_id = $1 AND fanned_out_at IS NULL ORDER BY id LIMIT $2),
       sent AS (
         INSERT INTO webhook_deliveries (endpoint_id, account_id, event, sequence_key, payload, webhook_event_id,
                                         created_at)
         SELECT w.id, $1, b.event, b.sequence_key, b.payload, b.id, b.created_at
           FROM batch b JOIN webhook_endpoints w
                  ON w.id = ANY ($3::int[]) AND b.event = ANY (w.events) AND w.created_at <= b.created_at
          ORDER BY b.id, w.id
         ON CONFLICT (endpoint_id, webhook_event_id) DO NOTHING
         RETURNING 1),
       done AS (UPDATE webhook_events e SET fanned_out_at = now() FROM batch WHERE e.id = batch.id RETURNING 1)
       SELECT (SELECT count(*) FROM done)::int AS events, (SELECT count(*) FROM sent)::int AS deliveries`,
      { bind: [accountId, batch, endpoints.map((e) => e.id)], type: QueryTypes.SELECT, transaction },
    );
    return events;
  });
}

/**
 * One round of fan-out: a batch of each account with waiting events (accounts take turns, so one account's
 * 100,000-row import does not hold another's single event back). Answers how many events were fanned out.
 */
export async function fanOutRound(sequelize: Sequelize, accounts = 50): Promise<number> {
  let total = 0;
  for (const accountId of await accountsWithEvents(sequelize, accounts))
    total += (await fanOutAccount(sequelize, accountId)) ?? 0;
  return total;
}

/** Fans out every waiting event (tests, and the bench): rounds until none is left. */
export async function fanOutAll(sequelize: Sequelize): Promise<number> {
  let total = 0;
  for (let n = await fanOutRound(sequelize); n > 0; n = await fanOutRound(sequelize)) total += n;
  return total;
}

/** Removes events fanned out before `before` (WEBHOOK_LOG_DAYS), a batch at a time; answers how many went. */
export const removeEventsBefore = (sequelize: Sequelize, before: Date, batch?: number): Promise<number> =>
  deleteInBatches(
    sequelize,
    `WITH gone AS (
       DELETE FROM webhook_events WHERE id IN (
         SELECT id FROM webhook_events WHERE fanned_out_at < $1 LIMIT $2)
       RETURNING 1)
     SELECT count(*)::int AS count FROM gone`,
    before,
    batch,
  );
