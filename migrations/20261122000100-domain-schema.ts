import type { Migration } from '../src/db/migrator.js';

const LEAD_STATUSES = "'new','confirmed','wrong','call_later','no_answer','duplicate','canceled'";
const ORDER_STATUSES = "'new','pushed','shipped','delivered','returned','canceled'";

export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE accounts (
      id SERIAL PRIMARY KEY,
      name VARCHAR(100) NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX accounts_name_key ON accounts (lower(name));

    CREATE TABLE users (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      role VARCHAR(10) NOT NULL CHECK (role IN ('admin','seller','agent')),
      email VARCHAR(254) NOT NULL,
      password_hash VARCHAR(255) NOT NULL,
      name VARCHAR(100) NOT NULL,
      active BOOLEAN NOT NULL DEFAULT true,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));
    CREATE INDEX users_account_idx ON users (account_id, role);

    CREATE TABLE password_resets (
      id SERIAL PRIMARY KEY,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash CHAR(64) NOT NULL UNIQUE,
      expires_at TIMESTAMPTZ NOT NULL,
      used_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX password_resets_user_idx ON password_resets (user_id);

    CREATE TABLE cities (
      id SERIAL PRIMARY KEY,
      name VARCHAR(100) NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX cities_name_key ON cities (lower(name));

    CREATE TABLE products (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      sku VARCHAR(100) NOT NULL,
      name VARCHAR(200) NOT NULL,
      price NUMERIC(12,2) NOT NULL CHECK (price >= 0),
      active BOOLEAN NOT NULL DEFAULT true,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX products_account_sku_key ON products (account_id, sku);

    CREATE TABLE api_tokens (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name VARCHAR(100) NOT NULL,
      token_hash CHAR(64) NOT NULL,
      scopes TEXT[] NOT NULL,
      last_used_at TIMESTAMPTZ,
      expires_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX api_tokens_account_idx ON api_tokens (account_id, created_at DESC);

    CREATE TABLE shipping_companies (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      code VARCHAR(50) NOT NULL,
      name VARCHAR(100) NOT NULL,
      adapter VARCHAR(20) NOT NULL DEFAULT 'http' CHECK (adapter IN ('http')),
      endpoint_url VARCHAR(500) NOT NULL,
      api_key VARCHAR(255),
      hmac_secret VARCHAR(255) NOT NULL,
      timeout_ms INTEGER NOT NULL DEFAULT 5000 CHECK (timeout_ms BETWEEN 100 AND 120000),
      active BOOLEAN NOT NULL DEFAULT true,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX shipping_companies_account_code_key ON shipping_companies (account_id, code);

    CREATE TABLE leads (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      reference VARCHAR(12) NOT NULL,
      phone VARCHAR(100) NOT NULL,
      phone_normalized VARCHAR(100) NOT NULL,
      full_name VARCHAR(100) NOT NULL,
      city VARCHAR(100),
      city_id INTEGER REFERENCES cities(id) ON DELETE SET NULL,
      area VARCHAR(100),
      address VARCHAR(100),
      data JSONB NOT NULL DEFAULT '[]'::jsonb,
      status VARCHAR(20) NOT NULL DEFAULT 'new' CHECK (status IN (${LEAD_STATUSES})),
      action_date TIMESTAMPTZ,
      total NUMERIC(16,2) NOT NULL DEFAULT 0,
      created_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      created_by_token_id INTEGER REFERENCES api_tokens(id) ON DELETE SET NULL,
      import_run_id INTEGER,
      import_row INTEGER,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX leads_account_reference_key ON leads (account_id, reference);
    CREATE INDEX leads_account_created_idx ON leads (account_id, created_at DESC, id DESC);
    CREATE INDEX leads_account_status_created_idx ON leads (account_id, status, created_at DESC, id DESC);
    CREATE INDEX leads_account_phone_idx ON leads (account_id, phone_normalized, created_at DESC);
    CREATE INDEX leads_account_city_idx ON leads (account_id, city_id);
    CREATE UNIQUE INDEX leads_import_row_key ON leads (account_id, import_run_id, import_row) WHERE import_run_id IS NOT NULL;
    CREATE INDEX leads_phone_trgm_idx ON leads USING gin (account_id, phone_normalized gin_trgm_ops);
    CREATE INDEX leads_full_name_trgm_idx ON leads USING gin (account_id, full_name gin_trgm_ops);
    CREATE INDEX leads_city_trgm_idx ON leads USING gin (account_id, city gin_trgm_ops);

    CREATE TABLE lead_products (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      lead_id BIGINT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
      product_id INTEGER REFERENCES products(id) ON DELETE SET NULL,
      sku VARCHAR(100) NOT NULL,
      name VARCHAR(200) NOT NULL,
      quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 999),
      price NUMERIC(12,2) NOT NULL,
      position SMALLINT NOT NULL DEFAULT 0
    );
    CREATE INDEX lead_products_account_lead_idx ON lead_products (account_id, lead_id);
    CREATE INDEX lead_products_lead_idx ON lead_products (lead_id);

    CREATE TABLE lead_histories (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      lead_id BIGINT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
      lead_reference VARCHAR(12) NOT NULL,
      old_status VARCHAR(20),
      new_status VARCHAR(20) NOT NULL,
      changed_by VARCHAR(200) NOT NULL,
      changed_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      changed_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX lead_histories_account_changed_idx ON lead_histories (account_id, changed_at DESC, id DESC);
    CREATE INDEX lead_histories_account_reference_idx ON lead_histories (account_id, lead_reference, changed_at DESC);
    CREATE INDEX lead_histories_lead_idx ON lead_histories (lead_id);

    CREATE TABLE orders (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      reference VARCHAR(12) NOT NULL,
      lead_id BIGINT REFERENCES leads(id) ON DELETE SET NULL,
      lead_reference VARCHAR(12),
      phone VARCHAR(100) NOT NULL,
      phone_normalized VARCHAR(100) NOT NULL,
      full_name VARCHAR(100) NOT NULL,
      city VARCHAR(100),
      area VARCHAR(100),
      address VARCHAR(100),
      data JSONB NOT NULL DEFAULT '[]'::jsonb,
      total NUMERIC(16,2) NOT NULL DEFAULT 0,
      status VARCHAR(20) NOT NULL DEFAULT 'new' CHECK (status IN (${ORDER_STATUSES})),
      shipping_company_id INTEGER REFERENCES shipping_companies(id) ON DELETE SET NULL,
      tracking_number VARCHAR(100),
      pushed_at TIMESTAMPTZ,
      push_state VARCHAR(20),
      push_attempts INTEGER NOT NULL DEFAULT 0,
      last_push_error TEXT,
      created_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX orders_account_reference_key ON orders (account_id, reference);
    CREATE UNIQUE INDEX orders_lead_key ON orders (account_id, lead_reference) WHERE lead_reference IS NOT NULL;
    CREATE INDEX orders_account_created_idx ON orders (account_id, created_at DESC, id DESC);
    CREATE INDEX orders_account_status_created_idx ON orders (account_id, status, created_at DESC, id DESC);
    CREATE INDEX orders_account_tracking_idx ON orders (account_id, tracking_number);
    CREATE INDEX orders_phone_trgm_idx ON orders USING gin (account_id, phone_normalized gin_trgm_ops);
    CREATE INDEX orders_full_name_trgm_idx ON orders USING gin (account_id, full_name gin_trgm_ops);
    CREATE INDEX orders_city_trgm_idx ON orders USING gin (account_id, city gin_trgm_ops);

    CREATE TABLE order_products (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      order_id BIGINT NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      product_id INTEGER REFERENCES products(id) ON DELETE SET NULL,
      sku VARCHAR(100) NOT NULL,
      name VARCHAR(200) NOT NULL,
      quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 999),
      price NUMERIC(12,2) NOT NULL,
      position SMALLINT NOT NULL DEFAULT 0
    );
    CREATE INDEX order_products_account_order_idx ON order_products (account_id, order_id);
    CREATE INDEX order_products_order_idx ON order_products (order_id);

    CREATE TABLE order_histories (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      order_id BIGINT NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      order_reference VARCHAR(12) NOT NULL,
      old_status VARCHAR(20),
      new_status VARCHAR(20) NOT NULL,
      changed_by VARCHAR(200) NOT NULL,
      changed_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      changed_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX order_histories_account_changed_idx ON order_histories (account_id, changed_at DESC, id DESC);
    CREATE INDEX order_histories_account_reference_idx ON order_histories (account_id, order_reference, changed_at DESC);
    CREATE INDEX order_histories_order_idx ON order_histories (order_id);

    CREATE TABLE import_runs (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      kind VARCHAR(10) NOT NULL DEFAULT 'leads' CHECK (kind IN ('leads','orders')),
      status VARCHAR(12) NOT NULL DEFAULT 'queued' CHECK (status IN ('queued','running','completed','failed')),
      file_name VARCHAR(255) NOT NULL,
      file_path VARCHAR(500) NOT NULL,
      file_type VARCHAR(5) NOT NULL CHECK (file_type IN ('xlsx','csv')),
      rows_total INTEGER,
      rows_read INTEGER NOT NULL DEFAULT 0,
      rows_written INTEGER NOT NULL DEFAULT 0,
      rows_failed INTEGER NOT NULL DEFAULT 0,
      cursor_row INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      started_at TIMESTAMPTZ,
      finished_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX import_runs_account_idx ON import_runs (account_id, created_at DESC);
    ALTER TABLE leads ADD CONSTRAINT leads_import_run_fk FOREIGN KEY (import_run_id) REFERENCES import_runs(id) ON DELETE SET NULL;

    CREATE TABLE import_run_errors (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      import_run_id INTEGER NOT NULL REFERENCES import_runs(id) ON DELETE CASCADE,
      row_number INTEGER NOT NULL,
      column_name VARCHAR(100) NOT NULL,
      message VARCHAR(500) NOT NULL
    );
    CREATE UNIQUE INDEX import_run_errors_row_key ON import_run_errors (account_id, import_run_id, row_number, column_name);

    CREATE TABLE export_runs (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      kind VARCHAR(10) NOT NULL DEFAULT 'leads' CHECK (kind IN ('leads','orders')),
      status VARCHAR(12) NOT NULL DEFAULT 'queued' CHECK (status IN ('queued','running','completed','failed','expired')),
      file_extension VARCHAR(5) NOT NULL CHECK (file_extension IN ('xlsx','csv')),
      filters JSONB NOT NULL DEFAULT '{}'::jsonb,
      file_path VARCHAR(500),
      rows_written INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      expires_at TIMESTAMPTZ,
      started_at TIMESTAMPTZ,
      finished_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX export_runs_account_idx ON export_runs (account_id, created_at DESC);

    CREATE TABLE sessions (
      sid VARCHAR(255) PRIMARY KEY,
      user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
      expires TIMESTAMPTZ,
      data TEXT,
      "createdAt" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "updatedAt" TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX sessions_expires_idx ON sessions (expires);
    CREATE INDEX sessions_user_idx ON sessions (user_id);
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP TABLE IF EXISTS sessions, export_runs, import_run_errors, order_histories, order_products, orders,
      lead_histories, lead_products, leads, import_runs, shipping_companies, api_tokens, products, cities,
      password_resets, users, accounts CASCADE;
  `);
};
