import type { Migration } from '../src/db/migrator.js';

/**
 * Orders that left or came back, waiting for the worker to move their stock (issue 43; src/stock/stock.follows.ts):
 * a shipment never changes what is available and a return only gives stock back, so a carrier's callback or a status
 * change writes one row per order here, in its own transaction, and the `follow-stock` job writes the ledger rows and
 * the levels. No foreign key (what an account's deletion leaves matches no order and is dropped by the job); rows are
 * deleted as they are applied, oldest first. A row the job could not apply on its own keeps the error and is skipped
 * (stock:check names it).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE stock_follows (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL,
      order_id BIGINT NOT NULL,
      status VARCHAR(20) NOT NULL CHECK (status IN ('shipped', 'delivered', 'returned')),
      changed_by VARCHAR(255) NOT NULL,
      user_id INTEGER,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      error VARCHAR(1000)
    );
    -- what waits for one account: applied before its counts and adjustments read on_hand
    CREATE INDEX stock_follows_account_idx ON stock_follows (account_id, id);
  `);
};

export const down: Migration = async ({ context: db }) => {
  // rows still waiting would be lost with the table: the worker's follow-stock job applies them first
  await db.query(`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM stock_follows WHERE error IS NULL) THEN
        RAISE EXCEPTION 'stock_follows holds shipments and returns not yet applied: run the follow-stock job first';
      END IF;
    END $$;
    DROP TABLE stock_follows;`);
};
