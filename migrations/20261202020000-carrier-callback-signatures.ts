import type { Migration } from '../src/db/migrator.js';

/**
 * The signatures of the carrier callbacks applied within their acceptance window (docs/api.md, "Carrier callbacks"):
 * the primary key makes a replay of one of them (same company, same signature) fail to insert, in whichever process
 * it arrives. Rows older than the window are pruned as callbacks arrive, since the window check refuses them anyway.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE carrier_callback_signatures (
      shipping_company_id integer NOT NULL REFERENCES shipping_companies(id) ON DELETE CASCADE,
      signature text NOT NULL,
      signed_at timestamptz NOT NULL,
      PRIMARY KEY (shipping_company_id, signature)
    )`);
  await db.query('CREATE INDEX carrier_callback_signatures_signed_at ON carrier_callback_signatures (signed_at)');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE carrier_callback_signatures');
};
