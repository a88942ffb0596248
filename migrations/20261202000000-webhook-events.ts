import type { Migration } from '../src/db/migrator.js';
import { EMIT_FUNCTIONS, EVENT_SELECTS } from './20261201000000-webhooks.js';

/** The classid of the claims' advisory locks; the objid is the account. */
const CLAIM_LOCK_CLASS = 2_026_120_202;

/**
 * Webhook events as a log (issue 29, docs/webhooks.md "Events and deliveries").
 *
 * The emitting triggers record ONE `webhook_events` row per change, whatever the number of the account's endpoints
 * (before: one delivery per subscribed endpoint, inside the writing transaction: 200 endpoints made a 1,000-lead
 * request write 200,000 rows). The delivery job fans each event out to the account's active, subscribed endpoints
 * (src/webhooks/webhook-fanout.ts), a bounded batch per account and transaction: the deliveries are inserted and the
 * events marked fanned out in the same transaction, so a crash loses or duplicates nothing (and the unique
 * (endpoint_id, webhook_event_id) refuses a second delivery of one event to one endpoint whatever happens).
 *
 * Events are consumed by their mark, not by a cursor over their id: a bigserial is taken at insert and committed in
 * any order, so a reader that saw id 6 cannot tell a still-running id 5 from a rolled-back one; a mark has no gap.
 *
 * Existing deliveries (pending ones included) stay as they are and are sent as before.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE webhook_events (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      event VARCHAR(40) NOT NULL,
      sequence_key VARCHAR(40) NOT NULL,
      payload JSONB NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      -- set by the fan-out, in the transaction that inserted the event's deliveries
      fanned_out_at TIMESTAMPTZ
    );
    -- what the fan-out reads: an account's events not fanned out yet, in id order
    CREATE INDEX webhook_events_pending_idx ON webhook_events (account_id, id) WHERE fanned_out_at IS NULL;
    -- the daily clean-up (WEBHOOK_LOG_DAYS)
    CREATE INDEX webhook_events_done_idx ON webhook_events (fanned_out_at) WHERE fanned_out_at IS NOT NULL;

    ALTER TABLE webhook_deliveries ADD COLUMN webhook_event_id BIGINT;
    CREATE UNIQUE INDEX webhook_deliveries_event_idx ON webhook_deliveries (endpoint_id, webhook_event_id);
    -- the claim: an account's due deliveries in order; the accounts with due work (a skip scan)
    CREATE INDEX webhook_deliveries_account_due_idx ON webhook_deliveries (account_id, next_try_at, id)
      WHERE state = 'pending';
    -- an account's attempts in flight (its cap, WEBHOOK_ACCOUNT_IN_FLIGHT)
    CREATE INDEX webhook_deliveries_account_locked_idx ON webhook_deliveries (account_id)
      WHERE locked_until IS NOT NULL;
  `);
  await db.query(CLAIM_FUNCTION);
  await db.query(
    Object.entries(EVENT_SELECTS)
      .map(([name, events]) => recordFunction(name, events))
      .join('\n'),
  );
};

/**
 * Inserts the events of `events` (a SELECT of account_id, event, sequence_key, ord, payload) that an active endpoint
 * of the account subscribes to, one row each in `ord` order, and notifies the workers at commit.
 */
export const recordFunction = (name: string, events: string) => `
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      recorded bigint;
    BEGIN
      -- the common case, an account without an active endpoint, costs one probe per account of the statement
      IF NOT EXISTS (SELECT 1 FROM webhook_endpoints w
                      WHERE w.active AND w.account_id IN (SELECT DISTINCT n.account_id FROM new_rows n)) THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_events (account_id, event, sequence_key, payload)
        SELECT e.account_id, e.event, e.sequence_key, e.payload
          FROM (${events}) e
         WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
                        WHERE w.account_id = e.account_id AND w.active AND e.event = ANY (w.events))
         ORDER BY e.ord;
      GET DIAGNOSTICS recorded = ROW_COUNT;
      IF recorded > 0 THEN PERFORM pg_notify('webhooks', ''); END IF;
      RETURN NULL;
    END $$;`;

/**
 * Takes the account's next due delivery that heads its sequence (no lower pending id of the same endpoint and
 * sequence key), of an active endpoint with fewer than `per_endpoint` deliveries in flight, when the account has
 * fewer than `per_account` in flight (WEBHOOK_ACCOUNT_IN_FLIGHT, all workers), and holds it for `hold` seconds
 * (`locked_until`: a lease, which runs out if the worker dies). The account's advisory lock makes count and claim
 * one step: the claim's query runs after the lock is taken, with a snapshot of its own (a plpgsql statement of a
 * VOLATILE function), so it sees every claim committed under the lock before; the lock goes with the caller's
 * transaction. One round trip.
 */
export const CLAIM_FUNCTION = `
    CREATE FUNCTION webhook_claim(account integer, hold double precision, per_endpoint integer, per_account integer)
    RETURNS TABLE (id bigint, event_id uuid, endpoint_id integer, account_id integer, event varchar, payload jsonb,
                   attempts integer, created_at timestamptz, url varchar, secret varchar, claim text)
    LANGUAGE plpgsql VOLATILE AS $$
    #variable_conflict use_column
    BEGIN
      -- waited for, not skipped: another worker's claim is one short statement
      PERFORM pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, webhook_claim.account);
      RETURN QUERY
      WITH next AS (
        SELECT d.id FROM webhook_deliveries d
          JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.active
         WHERE d.account_id = webhook_claim.account AND d.state = 'pending' AND d.next_try_at <= now()
           AND (d.locked_until IS NULL OR d.locked_until < now())
           AND (SELECT count(*) FROM webhook_deliveries f
                 WHERE f.account_id = webhook_claim.account AND f.locked_until >= now()) < per_account
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                            WHERE p.endpoint_id = d.endpoint_id AND p.sequence_key = d.sequence_key
                              AND p.state = 'pending' AND p.id < d.id)
           AND (SELECT count(*) FROM webhook_deliveries b
                 WHERE b.endpoint_id = d.endpoint_id AND b.locked_until >= now()) < per_endpoint
         ORDER BY d.next_try_at, d.id
         LIMIT 1
         FOR UPDATE OF d SKIP LOCKED)
      UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => hold)
        FROM next, webhook_endpoints w
       WHERE d.id = next.id AND w.id = d.endpoint_id
      RETURNING d.id, d.event_id, d.endpoint_id, d.account_id, d.event, d.payload, d.attempts, d.created_at, w.url,
                w.secret, d.locked_until::text;
    END $$;`;

export const down: Migration = async ({ context: db }) => {
  // the triggers call the functions by name: replaced in place, the triggers stay. Events not fanned out yet are lost.
  await db.query(EMIT_FUNCTIONS.replaceAll('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
  await db.query(`
    DROP FUNCTION webhook_claim(integer, double precision, integer, integer);
    DROP INDEX webhook_deliveries_account_locked_idx;
    DROP INDEX webhook_deliveries_account_due_idx;
    DROP INDEX webhook_deliveries_event_idx;
    ALTER TABLE webhook_deliveries DROP COLUMN webhook_event_id;
    DROP TABLE webhook_events;`);
};
