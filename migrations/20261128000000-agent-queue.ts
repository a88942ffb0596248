import type { Migration } from '../src/db/migrator.js';

/**
 * The agent work queue (src/queue/, issue 20).
 *
 * `lead_claims`: at most one row per lead (the primary key), the agent's user who holds it and until when. A claim is
 * taken and taken over with one INSERT … ON CONFLICT (lead_id) DO UPDATE … WHERE the old claim has expired, so two
 * agents can never hold one lead, whatever their statement snapshots. A released or lapsed claim stays until it is
 * taken over or cleaned (src/queue/queue.repository.ts): it tells who last had the lead and keeps the lead away from
 * that agent for a while. No foreign key to accounts: the lead's cascade covers an account's deletion.
 *
 * `lead_histories.note`: the agent's note on a status change, ≤ 500 characters (VARCHAR: adding the column rewrites and
 * scans nothing, where a CHECK constraint would scan every history row under an exclusive lock).
 *
 * `leads_call_later_due_idx`: the queue's first rule, due `call_later` leads earliest first, and their count, read from
 * a small partial index instead of every call_later lead of the account sorted. The second rule, the oldest `new` lead,
 * walks leads_account_status_created_idx backwards (test/integration/queue-plans.test.ts asserts both plans).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE lead_claims (
      lead_id BIGINT PRIMARY KEY REFERENCES leads(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      claimed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      expires_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX lead_claims_account_expires_idx ON lead_claims (account_id, expires_at);
    CREATE INDEX lead_claims_user_idx ON lead_claims (user_id, account_id);

    ALTER TABLE lead_histories ADD COLUMN note VARCHAR(500);

    CREATE INDEX leads_call_later_due_idx ON leads (account_id, action_date, id) WHERE status = 'call_later';
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP INDEX leads_call_later_due_idx;
    ALTER TABLE lead_histories DROP COLUMN note;
    DROP TABLE lead_claims;
  `);
};
