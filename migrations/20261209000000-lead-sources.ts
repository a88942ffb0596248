import type { Migration } from '../src/db/migrator.js';

/**
 * Lead sources (issue 34, docs/lead-sources.md): where an account's leads are born outside LeadFlow.
 *
 * `lead_sources`: a landing-page form (`form`) or a shop (`shopify`, `woocommerce`) of one account. `public_key` names
 * the source in its public address (the form's action, the shop's webhook URL): random, unique across accounts, not a
 * secret. `signing_secret` is the shop's webhook secret (Shopify's app secret, WooCommerce's webhook secret), kept to
 * verify each delivery's HMAC and never shown again. `allowed_origins` (forms): the pages allowed to post (CORS and the
 * Origin check); `thank_you_url` where the browser lands after a submission. `default_products`: the lines a
 * submission without products gets ([{sku, quantity, price?}]); `product_mapping`: a shop's sku or product id → the
 * account's sku, for lines whose sku is not the account's.
 *
 * `leads.source_id`, `leads.utm` (utm_source, utm_medium, utm_campaign, utm_term, utm_content as received),
 * `leads.external_id` (a shop's order id): one lead per shop order, so a re-delivered webhook creates nothing (the
 * unique index decides, also for two deliveries at once). A deleted source keeps its leads (SET NULL).
 *
 * A source's lead came in by 'form' or 'store' (`lead_entry_point` of migration 20261208300000, given the source's
 * kind): the KPI page's breakdown by entry point.
 *
 * `lead_intake`: every submission a source received and what became of it (created, duplicate, refused and why, rate
 * limited), kept 30 days; read newest first per source.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE lead_sources (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      kind VARCHAR(20) NOT NULL CHECK (kind IN ('form', 'shopify', 'woocommerce')),
      name VARCHAR(100) NOT NULL,
      public_key VARCHAR(40) NOT NULL,
      signing_secret VARCHAR(255),
      allowed_origins TEXT[] NOT NULL DEFAULT '{}',
      thank_you_url VARCHAR(2000),
      default_products JSONB NOT NULL DEFAULT '[]'::jsonb,
      product_mapping JSONB NOT NULL DEFAULT '{}'::jsonb,
      active BOOLEAN NOT NULL DEFAULT true,
      created_by VARCHAR(255),
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      CONSTRAINT lead_sources_public_key_key UNIQUE (public_key)
    );
    CREATE INDEX lead_sources_account_idx ON lead_sources (account_id, id);

    ALTER TABLE leads
      ADD COLUMN source_id INTEGER REFERENCES lead_sources(id) ON DELETE SET NULL,
      ADD COLUMN utm JSONB,
      ADD COLUMN external_id VARCHAR(100);
    CREATE UNIQUE INDEX leads_source_external_key ON leads (source_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX leads_source_created_idx ON leads (source_id, created_at DESC, id DESC) WHERE source_id IS NOT NULL;

    CREATE TABLE lead_intake (
      id BIGSERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      source_id INTEGER NOT NULL REFERENCES lead_sources(id) ON DELETE CASCADE,
      received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      outcome VARCHAR(20) NOT NULL CHECK (outcome IN ('created', 'duplicate', 'refused', 'rate_limited')),
      reason VARCHAR(500),
      lead_id BIGINT REFERENCES leads(id) ON DELETE SET NULL,
      lead_reference VARCHAR(12),
      external_id VARCHAR(100),
      client_ip VARCHAR(64),
      origin VARCHAR(255),
      payload JSONB
    );
    CREATE INDEX lead_intake_source_received_idx ON lead_intake (source_id, received_at DESC, id DESC);
    CREATE INDEX lead_intake_received_idx ON lead_intake (received_at);

  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP TABLE lead_intake;
    ALTER TABLE leads DROP COLUMN source_id, DROP COLUMN utm, DROP COLUMN external_id;
    DROP TABLE lead_sources;
  `);
};
