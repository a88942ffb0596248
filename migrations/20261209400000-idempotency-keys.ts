import type { Migration } from '../src/db/migrator.js';

/**
 * Idempotency keys of REST writes (issue 34, docs/api.md "Idempotent requests"): one row per (account, endpoint, key).
 * A row is inserted in the same transaction as the write it guards and completed (status_code, response) before that
 * transaction commits, so a committed row always has its answer and its leads/orders; a killed process rolls both back
 * and the key can be retried. The unique key makes a second request with the key wait for the first's commit (the
 * INSERT waits on the uncommitted row) and then replay its answer. Rows older than 24 h are ignored by readers and
 * removed by the cleanup-idempotency-keys job; the created_at index serves that job.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE idempotency_keys (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      endpoint VARCHAR(50) NOT NULL,
      key VARCHAR(255) NOT NULL,
      request_hash CHAR(64) NOT NULL,
      status_code SMALLINT,
      response JSONB,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      completed_at TIMESTAMPTZ,
      CONSTRAINT idempotency_keys_key UNIQUE (account_id, endpoint, key)
    );
    CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE idempotency_keys;');
};
