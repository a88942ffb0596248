import type { Migration } from '../src/db/migrator.js';

/**
 * Cash (issue 44, docs/cash.md): the money of an order once it is delivered or returned, the carriers' tariffs, and
 * the remittance statements that pay delivered orders. Amounts are integer cents of the account's currency.
 *
 * - accounts: `currency` (ISO 4217 letters, MAD by default) and `buyer_delivery_fee`, what the buyer pays the courier
 *   on top of the order's total.
 * - shipping_companies: the tariff (`delivery_fee`, `return_fee`, `cod_commission_percent`) and `remit_within_days`,
 *   after which a delivered order not remitted is overdue; shipping_city_fees: a fee per city instead of the flat one.
 * - orders: the money fixed when the order is delivered or returned (`cod_amount`, `delivery_fee`, `return_fee`,
 *   `cod_commission`), `payment_status` (none, to_collect, remitted, disputed), `delivered_at`, and the statement that
 *   paid it. Orders delivered before this migration are to collect, at a flat fee of 0.
 * - remittances and their lines: one statement per carrier and number, each line with the order it matched and its
 *   outcome.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    ALTER TABLE accounts
      ADD COLUMN currency CHAR(3) NOT NULL DEFAULT 'MAD' CHECK (currency ~ '^[A-Z]{3}$'),
      ADD COLUMN buyer_delivery_fee BIGINT NOT NULL DEFAULT 0 CHECK (buyer_delivery_fee BETWEEN 0 AND 100000000);

    ALTER TABLE shipping_companies
      ADD COLUMN delivery_fee BIGINT NOT NULL DEFAULT 0 CHECK (delivery_fee BETWEEN 0 AND 100000000),
      ADD COLUMN return_fee BIGINT NOT NULL DEFAULT 0 CHECK (return_fee BETWEEN 0 AND 100000000),
      ADD COLUMN cod_commission_percent NUMERIC(5,2) NOT NULL DEFAULT 0
        CHECK (cod_commission_percent BETWEEN 0 AND 100),
      ADD COLUMN remit_within_days INTEGER NOT NULL DEFAULT 14 CHECK (remit_within_days BETWEEN 1 AND 365);

    CREATE TABLE shipping_city_fees (
      shipping_company_id INTEGER NOT NULL REFERENCES shipping_companies(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      city VARCHAR(100) NOT NULL,
      delivery_fee BIGINT NOT NULL CHECK (delivery_fee BETWEEN 0 AND 100000000),
      return_fee BIGINT CHECK (return_fee BETWEEN 0 AND 100000000)
    );
    CREATE UNIQUE INDEX shipping_city_fees_key ON shipping_city_fees (shipping_company_id, lower(city));

    ALTER TABLE products ADD COLUMN cost_price BIGINT CHECK (cost_price BETWEEN 0 AND 100000000);

    ALTER TABLE orders
      ADD COLUMN payment_status VARCHAR(12) NOT NULL DEFAULT 'none'
        CHECK (payment_status IN ('none', 'to_collect', 'remitted', 'disputed')),
      ADD COLUMN cod_amount BIGINT,
      ADD COLUMN delivery_fee BIGINT,
      ADD COLUMN return_fee BIGINT,
      ADD COLUMN cod_commission BIGINT,
      ADD COLUMN delivered_at TIMESTAMPTZ,
      ADD COLUMN remittance_id BIGINT;

    CREATE TABLE remittances (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      shipping_company_id INTEGER NOT NULL REFERENCES shipping_companies(id) ON DELETE CASCADE,
      statement_number VARCHAR(100) NOT NULL,
      paid_at DATE NOT NULL,
      lines INTEGER NOT NULL,
      amount BIGINT NOT NULL,
      fees BIGINT NOT NULL,
      outcomes JSONB NOT NULL,
      changed_by VARCHAR(255) NOT NULL,
      user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    -- the same statement of the same carrier is recorded once: again, it answers the first result
    CREATE UNIQUE INDEX remittances_statement_key ON remittances (shipping_company_id, statement_number);
    CREATE INDEX remittances_account_idx ON remittances (account_id, id DESC);

    CREATE TABLE remittance_lines (
      remittance_id BIGINT NOT NULL REFERENCES remittances(id) ON DELETE CASCADE,
      line INTEGER NOT NULL,
      account_id INTEGER NOT NULL,
      reference VARCHAR(40),
      tracking_number VARCHAR(100),
      amount BIGINT NOT NULL,
      fees BIGINT,
      order_id BIGINT,
      expected BIGINT,
      outcome VARCHAR(16) NOT NULL
        CHECK (outcome IN ('matched', 'short', 'over', 'unknown_order', 'not_delivered', 'already_remitted')),
      PRIMARY KEY (remittance_id, line)
    );

    -- what is to collect or disputed, per carrier: the outstanding cash and its age
    CREATE INDEX orders_outstanding_idx ON orders (account_id, shipping_company_id, delivered_at)
      WHERE payment_status IN ('to_collect', 'disputed');

    UPDATE orders o SET payment_status = 'to_collect', cod_amount = round(o.total * 100)::bigint,
           delivery_fee = 0, return_fee = 0, cod_commission = 0,
           delivered_at = coalesce((SELECT max(h.changed_at) FROM order_histories h
                                     WHERE h.account_id = o.account_id AND h.order_reference = o.reference
                                       AND h.new_status = 'delivered'), o.updated_at)
     WHERE o.status = 'delivered';
    UPDATE orders o SET cod_amount = round(o.total * 100)::bigint, delivery_fee = 0, return_fee = 0, cod_commission = 0
     WHERE o.status = 'returned';
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP TABLE remittance_lines;
    DROP TABLE remittances;
    DROP INDEX orders_outstanding_idx;
    ALTER TABLE orders DROP COLUMN payment_status, DROP COLUMN cod_amount, DROP COLUMN delivery_fee,
      DROP COLUMN return_fee, DROP COLUMN cod_commission, DROP COLUMN delivered_at, DROP COLUMN remittance_id;
    ALTER TABLE products DROP COLUMN cost_price;
    DROP TABLE shipping_city_fees;
    ALTER TABLE shipping_companies DROP COLUMN delivery_fee, DROP COLUMN return_fee,
      DROP COLUMN cod_commission_percent, DROP COLUMN remit_within_days;
    ALTER TABLE accounts DROP COLUMN currency, DROP COLUMN buyer_delivery_fee;
  `);
};
