import type { Migration } from '../src/db/migrator.js';

/**
 * Fairness of the agent work queue (issue 33, docs/api.md "Agent work queue", docs/decisions.md "Work queue order").
 *
 * `lead_give_backs`: per lead and user, until when the lead stays away from that user after they gave it back (a
 * release, a `next` without an outcome, a claim left to lapse). `lead_claims` keeps one row per lead (the single live
 * claim: two agents never hold one lead), so it could only remember the last holder: when a second agent took and gave
 * back the same lead, the first agent's give-back was lost and two skipping agents passed the same few leads back and
 * forth. One row per (lead, user) keeps every agent's give-back until it expires, whoever claims the lead later.
 * Expired rows are deleted by the next `next` of the account, in a statement of its own (src/queue/give-backs.ts);
 * an outcome deletes the lead's rows; deleting a lead or a user deletes theirs (cascades). `account_id` (no foreign
 * key, like lead_claims: the lead's cascade covers an account) lets the cleaning read one account's expired rows.
 *
 * Existing claims become give-backs of their holders, until their end plus the default QUEUE_CLAIM_SECONDS (300 s):
 * what lead_claims told until now (a deployment with another value sees those few rows last 5 minutes instead).
 *
 * `leads_fresh_new_idx`: the queue's first rule, `new` leads created within QUEUE_FRESH_SECONDS and not by an import
 * (a file of old contacts is no fresh inquiry), oldest first, and their count: a partial index without the imported
 * leads, so the 200,000 rows of an import just made are neither read nor counted as fresh.
 * `leads_no_answer_due_idx`: the fourth rule, `no_answer` leads whose last change is QUEUE_RETRY_SECONDS old, the
 * longest-waiting first, read from a partial index of the no_answer leads by `updated_at` instead of every lead of the
 * account. Due call-backs (rule 2) read leads_call_later_due_idx, the other new leads (rule 3)
 * leads_account_status_created_idx backwards (test/integration/queue-plans.test.ts asserts the four plans).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE lead_give_backs (
      lead_id BIGINT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL,
      until TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (lead_id, user_id)
    );
    CREATE INDEX lead_give_backs_account_until_idx ON lead_give_backs (account_id, until);
    CREATE INDEX lead_give_backs_user_idx ON lead_give_backs (user_id);

    INSERT INTO lead_give_backs (lead_id, user_id, account_id, until)
      SELECT lead_id, user_id, account_id, expires_at + interval '300 seconds' FROM lead_claims
       WHERE expires_at + interval '300 seconds' > now();

    CREATE INDEX leads_fresh_new_idx ON leads (account_id, created_at, id)
      WHERE status = 'new' AND import_run_id IS NULL;
    CREATE INDEX leads_no_answer_due_idx ON leads (account_id, updated_at, id) WHERE status = 'no_answer';
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP INDEX leads_no_answer_due_idx;
    DROP INDEX leads_fresh_new_idx;
    DROP TABLE lead_give_backs;
  `);
};
