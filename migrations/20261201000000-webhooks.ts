import type { Migration } from '../src/db/migrator.js';

/** The events an endpoint may subscribe to (src/webhooks/webhook.schemas.ts WEBHOOK_EVENTS says the same). */
const EVENTS = "'lead.created','lead.status_changed','order.created','order.status_changed','import.finished'";

/**
 * Webhooks (docs/webhooks.md): per account, endpoints (URL, events, secret) and the log of their deliveries.
 *
 * Events are emitted in the transaction of the change, by statement-level triggers (ENABLE ALWAYS: the lead batch
 * insert runs with session_replication_role = replica) on the two history tables and on import runs reaching a final
 * status, so every write path (REST, panel, dashboard, queue, import, jobs, carrier callbacks) emits exactly once, and a
 * rolled-back change emits nothing. A trigger inserts one pending delivery per active endpoint of the account that
 * subscribed to the event (nothing at all when the account has no active endpoint: one index probe), with the
 * payload as the change left the rows, and NOTIFYs `webhooks` (delivered at commit) so a worker starts sending.
 * Deliveries of one endpoint and one sequence key (`lead:<reference>`: a lead's events and those of its order) are
 * sent one after the other in id order (src/webhooks/webhook-delivery.repository.ts).
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE webhook_endpoints (
      id SERIAL PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      url VARCHAR(500) NOT NULL,
      events TEXT[] NOT NULL CHECK (cardinality(events) > 0 AND events <@ ARRAY[${EVENTS}]),
      secret VARCHAR(100) NOT NULL,
      active BOOLEAN NOT NULL DEFAULT true,
      failing_since TIMESTAMPTZ,
      disabled_at TIMESTAMPTZ,
      disabled_reason VARCHAR(500),
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, id);
    -- what every emitting statement looks up first
    CREATE INDEX webhook_endpoints_active_idx ON webhook_endpoints (account_id) WHERE active;

    CREATE TABLE webhook_deliveries (
      id BIGSERIAL PRIMARY KEY,
      event_id UUID NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      event VARCHAR(40) NOT NULL CHECK (event IN (${EVENTS})),
      sequence_key VARCHAR(40) NOT NULL,
      payload JSONB NOT NULL,
      state VARCHAR(10) NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','delivered','failed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      response_code INTEGER,
      duration_ms INTEGER,
      last_error VARCHAR(500),
      next_try_at TIMESTAMPTZ DEFAULT now(),
      -- a worker sending it holds it until then (no transaction stays open during the HTTP request)
      locked_until TIMESTAMPTZ,
      delivered_at TIMESTAMPTZ,
      resent_from BIGINT REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_deliveries_account_idx ON webhook_deliveries (account_id, id DESC);
    CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id DESC);
    CREATE INDEX webhook_deliveries_resent_idx ON webhook_deliveries (resent_from) WHERE resent_from IS NOT NULL;
    -- in the claim's order: the first due head is found without sorting every delivery due at the same instant
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_try_at, id) WHERE state = 'pending';
    -- the head of each (endpoint, sequence) is its lowest pending id
    CREATE INDEX webhook_deliveries_sequence_idx ON webhook_deliveries (endpoint_id, sequence_key, id)
      WHERE state = 'pending';
    -- the deliveries of an endpoint in flight (a worker holds at most a few of one endpoint at once)
    CREATE INDEX webhook_deliveries_locked_idx ON webhook_deliveries (endpoint_id) WHERE locked_until IS NOT NULL;
    -- the daily clean-up of the log (WEBHOOK_LOG_DAYS)
    CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries ((coalesce(delivered_at, created_at)))
      WHERE state <> 'pending';

    ${JSON_FUNCTIONS}
    ${EMIT_FUNCTIONS}
  `);
  for (const [table, fn, op, refs] of TRIGGERS) {
    await db.query(`
      CREATE TRIGGER ${table}_webhooks AFTER ${op} ON ${table} REFERENCING ${refs}
        FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();
      ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${table}_webhooks;`);
  }
};

const TRIGGERS = [
  ['lead_histories', 'webhooks_emit_lead_histories', 'INSERT', 'NEW TABLE AS new_rows'],
  ['order_histories', 'webhooks_emit_order_histories', 'INSERT', 'NEW TABLE AS new_rows'],
  ['import_runs', 'webhooks_emit_import_runs', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
] as const;

/** The lead, order and import as an event's `data` shows them (docs/webhooks.md "Events"). */
const JSON_FUNCTIONS = `
    CREATE FUNCTION webhook_lead_json(l leads) RETURNS jsonb LANGUAGE sql STABLE AS $$
      SELECT jsonb_build_object(
        'reference', l.reference, 'status', l.status, 'phone', l.phone, 'phone_e164', l.phone_normalized,
        'full_name', l.full_name, 'city', l.city,
        'area', l.area, 'address', l.address, 'data', l.data, 'total', l.total, 'action_date', l.action_date,
        'created_at', l.created_at,
        'products', (SELECT coalesce(jsonb_agg(jsonb_build_object('sku', p.sku, 'name', p.name,
                                     'quantity', p.quantity, 'price', p.price) ORDER BY p.position, p.id), '[]')
                       FROM lead_products p WHERE p.lead_id = l.id))
    $$;

    CREATE FUNCTION webhook_order_json(o orders) RETURNS jsonb LANGUAGE sql STABLE AS $$
      SELECT jsonb_build_object(
        'reference', o.reference, 'lead_reference', o.lead_reference, 'status', o.status, 'phone', o.phone,
        'phone_e164', o.phone_normalized,
        'full_name', o.full_name, 'city', o.city, 'area', o.area, 'address', o.address, 'data', o.data,
        'total', o.total, 'tracking_number', o.tracking_number, 'pushed_at', o.pushed_at,
        'shipping_company', (SELECT s.code FROM shipping_companies s WHERE s.id = o.shipping_company_id),
        'created_at', o.created_at,
        'products', (SELECT coalesce(jsonb_agg(jsonb_build_object('sku', p.sku, 'name', p.name,
                                     'quantity', p.quantity, 'price', p.price) ORDER BY p.position, p.id), '[]')
                       FROM order_products p WHERE p.order_id = o.id))
    $$;`;

/** The change a history row records: old and new status, who (name and user id), when. */
const CHANGE = `'old_status', h.old_status, 'new_status', h.new_status,
             'changed_by', jsonb_build_object('name', h.changed_by, 'user_id', h.changed_by_user_id),
             'changed_at', h.changed_at`;

/**
 * Inserts the deliveries of `events` (a SELECT of account_id, event, sequence_key, payload, ord), one per active
 * endpoint of the account subscribed to the event, in `ord` order (ids follow it: the order of a sequence), and
 * notifies the workers at commit.
 */
const emit = (events: string) => `
      -- the common case, an account without an active endpoint, costs one probe per account of the statement
      IF NOT EXISTS (SELECT 1 FROM webhook_endpoints w
                      WHERE w.active AND w.account_id IN (SELECT DISTINCT n.account_id FROM new_rows n)) THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_deliveries (endpoint_id, account_id, event, sequence_key, payload)
        SELECT w.id, e.account_id, e.event, e.sequence_key, e.payload
          FROM (${events}) e
          JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.active AND e.event = ANY (w.events)
         ORDER BY e.ord, w.id;
      GET DIAGNOSTICS emitted = ROW_COUNT;
      IF emitted > 0 THEN PERFORM pg_notify('webhooks', ''); END IF;
      RETURN NULL;`;

const emitFunction = (name: string, events: string) => `
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      emitted bigint;
    BEGIN ${emit(events)}
    END $$;`;

/** What each emitting trigger records: a SELECT of account_id, event, sequence_key, ord, payload over `new_rows`. */
export const EVENT_SELECTS = {
  webhooks_emit_lead_histories: `
      SELECT h.account_id, CASE WHEN h.old_status IS NULL THEN 'lead.created' ELSE 'lead.status_changed' END AS event,
              'lead:' || h.lead_reference AS sequence_key, h.id AS ord,
              jsonb_build_object('lead', webhook_lead_json(l), ${CHANGE}, 'note', h.note) AS payload
         FROM new_rows h JOIN leads l ON l.id = h.lead_id`,
  webhooks_emit_order_histories: `
      SELECT h.account_id, CASE WHEN h.old_status IS NULL THEN 'order.created' ELSE 'order.status_changed' END AS event,
              'lead:' || coalesce(o.lead_reference, o.reference) AS sequence_key, h.id AS ord,
              jsonb_build_object('order', webhook_order_json(o), ${CHANGE}, 'tracking_number', o.tracking_number)
                AS payload
         FROM new_rows h JOIN orders o ON o.id = h.order_id`,
  webhooks_emit_import_runs: `
      SELECT n.account_id, 'import.finished' AS event, 'import:' || n.id AS sequence_key, n.id AS ord,
              jsonb_build_object('import', jsonb_build_object(
                'id', n.id, 'kind', n.kind, 'status', n.status, 'file_name', n.file_name, 'rows_total', n.rows_total,
                'rows_read', n.rows_read, 'rows_written', n.rows_written, 'rows_failed', n.rows_failed,
                'error', n.error, 'started_at', n.started_at, 'finished_at', n.finished_at)) AS payload
         FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.status IN ('completed', 'failed') AND o.status NOT IN ('completed', 'failed')`,
} as const;

/** The functions as this migration creates them (migrations/20261202000000-webhook-events.ts restores them on down). */
export const EMIT_FUNCTIONS = Object.entries(EVENT_SELECTS)
  .map(([name, events]) => emitFunction(name, events))
  .join('\n');

export const down: Migration = async ({ context: db }) => {
  for (const [table] of TRIGGERS) await db.query(`DROP TRIGGER IF EXISTS ${table}_webhooks ON ${table}`);
  await db.query(`
    DROP FUNCTION webhooks_emit_import_runs();
    DROP FUNCTION webhooks_emit_order_histories();
    DROP FUNCTION webhooks_emit_lead_histories();
    DROP FUNCTION webhook_order_json(orders);
    DROP FUNCTION webhook_lead_json(leads);
    DROP TABLE webhook_deliveries;
    DROP TABLE webhook_endpoints;`);
};
