import type { Migration } from '../src/db/migrator.js';

/**
 * orders.lead_id (ON DELETE SET NULL) had no index: every deleted lead made PostgreSQL scan the whole orders table to
 * find the orders pointing at it, so deleting 200 k leads beside 1 M orders ran for more than 10 minutes (lead deletes
 * and account deletes alike, docs/performance.md). Only orders made from a lead have one.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query('CREATE INDEX orders_lead_idx ON orders (lead_id) WHERE lead_id IS NOT NULL');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP INDEX orders_lead_idx');
};
