import type { Migration } from '../src/db/migrator.js';

/**
 * Orders that left or came back, waiting for the worker to move their stock (issue 43; src/stock/stock.follows.ts):
 * a shipment never changes what is available and a return only gives stock back, so a carrier's callback or a status
 * change writes one row per order here, in its own transaction, and the `follow-stock` job writes the ledger rows and
 * the levels within seconds. No foreign key (a row's order may be deleted meanwhile: its deletion applies the row
 * first); rows are deleted as they are applied, oldest first.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE stock_follows (
      id BIGSERIAL PRIMARY KEY,
      order_id BIGINT NOT NULL,
      status VARCHAR(20) NOT NULL CHECK (status IN ('shipped', 'delivered', 'returned')),
      changed_by VARCHAR(255) NOT NULL,
      user_id INTEGER,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX stock_follows_order_idx ON stock_follows (order_id);
  `);
};

export const down: Migration = async ({ context: db }) => {
  // rows still waiting go with the table: run the follow-stock job (or stop the writes) before going down
  await db.query('DROP TABLE stock_follows');
};
