import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { isRowId, select } from '../query.js';
import type { SourceLine, SourceKind, IntakeOutcome } from './lead-source.model.js';
import type { IntakeView } from './source.schemas.js';
import { HEALTH_WINDOW_HOURS, INTAKE_KEEP_DAYS } from './source-health.js';
import { BAD_SIGNATURE } from './intake.repository.js';

/** A source row as read, secret included: the service decides what leaves. */
export interface SourceRow {
  id: number;
  account_id: number;
  kind: SourceKind;
  name: string;
  public_key: string;
  signing_secret: string | null;
  allowed_origins: string[];
  thank_you_url: string | null;
  default_products: SourceLine[];
  product_mapping: Record<string, string>;
  active: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An intake log row as read: its view with the time as a Date. */
export type IntakeRow = Omit<IntakeView, 'received_at'> & { received_at: Date };

const COLUMNS = `id, account_id, kind, name, public_key, signing_secret, allowed_origins, thank_you_url,
  default_products, product_mapping, active, created_by, created_at, updated_at`;

/** A row id from unknown input (`'12'`, 12), or null: a value no row can have names none and never reaches SQL. */
export function sourceId(id: unknown): number | null {
  const n = typeof id === 'string' && /^[0-9]{1,10}$/.test(id) ? Number(id) : typeof id === 'number' ? id : NaN;
  return isRowId(n) ? n : null;
}

export type NewSource = Omit<SourceRow, 'id' | 'created_at' | 'updated_at'>;

export async function insertSource(sequelize: Sequelize, s: NewSource, transaction?: Transaction): Promise<SourceRow> {
  const [row] = await sequelize.query<SourceRow>(
    `INSERT INTO lead_sources (account_id, kind, name, public_key, signing_secret, allowed_origins, thank_you_url,
                               default_products, product_mapping, active, created_by)
     VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8::jsonb, $9::jsonb, $10, $11)
     RETURNING ${COLUMNS}`,
    {
      bind: [
        s.account_id,
        s.kind,
        s.name,
        s.public_key,
        s.signing_secret,
        s.allowed_origins,
        s.thank_you_url,
        JSON.stringify(s.default_products),
        JSON.stringify(s.product_mapping),
        s.active,
        s.created_by,
      ],
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return row;
}

/** What an update may change (absent: unchanged). */
export type SourceChanges = Partial<
  Pick<
    SourceRow,
    'name' | 'allowed_origins' | 'thank_you_url' | 'default_products' | 'product_mapping' | 'signing_secret' | 'active'
  >
>;

/** Writes the changes named (COALESCE keeps the others; thank_you_url may be set to null, so it has its own flag). */
export async function updateSource(
  sequelize: Sequelize,
  id: number,
  c: SourceChanges,
  transaction?: Transaction,
): Promise<SourceRow> {
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  const [row] = await sequelize.query<SourceRow>(
    `UPDATE lead_sources SET name = COALESCE($2, name), allowed_origins = COALESCE($3::text[], allowed_origins),
            thank_you_url = CASE WHEN $4 THEN $5 ELSE thank_you_url END,
            default_products = COALESCE($6::jsonb, default_products),
            product_mapping = COALESCE($7::jsonb, product_mapping),
            signing_secret = COALESCE($8, signing_secret), active = COALESCE($9, active), updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    {
      bind: [
        id,
        c.name ?? null,
        c.allowed_origins ?? null,
        c.thank_you_url !== undefined,
        c.thank_you_url ?? null,
        json(c.default_products),
        json(c.product_mapping),
        c.signing_secret ?? null,
        c.active ?? null,
      ],
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return row;
}

/** A source by id within `accountId` (none: any account); null when unknown. */
export async function findSource(
  sequelize: Sequelize,
  id: number,
  accountId: number | undefined,
  transaction?: Transaction,
): Promise<SourceRow | null> {
  const [row] = await select<SourceRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM lead_sources WHERE id = $1 AND ($2::int IS NULL OR account_id = $2)`,
    [id, accountId ?? null],
    transaction,
  );
  return row ?? null;
}

/** One page of sources of `accountId` (none: every account), newest first. */
export async function sourcePage(
  sequelize: Sequelize,
  f: { accountId?: number; page: number; perPage: number },
): Promise<{ rows: SourceRow[]; total: number }> {
  const rows = await select<SourceRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM lead_sources WHERE ($1::int IS NULL OR account_id = $1)
      ORDER BY id DESC OFFSET $2 LIMIT $3`,
    [f.accountId ?? null, (f.page - 1) * f.perPage, f.perPage],
  );
  const [{ total }] = await select<{ total: number }>(
    sequelize,
    'SELECT count(*)::int AS total FROM lead_sources WHERE ($1::int IS NULL OR account_id = $1)',
    [f.accountId ?? null],
  );
  return { rows, total };
}

export async function deleteSource(sequelize: Sequelize, id: number, accountId: number): Promise<number> {
  const rows = await sequelize.query<{ id: number }>(
    'DELETE FROM lead_sources WHERE id = $1 AND account_id = $2 RETURNING id',
    { bind: [id, accountId], type: QueryTypes.SELECT },
  );
  return rows.length;
}

/**
 * Submissions and refusals (refused or rate limited; a counted row is its attempts) of each source named, in the last
 * 24 hours: the figures the failing rule reads. Deliveries with a bad signature are not the source's: left out.
 * Served by lead_intake_source_received_idx (one range per source).
 */
export async function intakeCounts(
  sequelize: Sequelize,
  sourceIds: number[],
  accountId: number | null = null,
): Promise<Map<number, { received: number; refused: number }>> {
  if (!sourceIds.length) return new Map();
  const rows = await select<{ source_id: number; received: number; refused: number }>(
    sequelize,
    `SELECT source_id, coalesce(sum(attempts), 0)::int AS received,
            coalesce(sum(attempts) FILTER (WHERE outcome IN ('refused', 'rate_limited')), 0)::int AS refused
       FROM lead_intake WHERE source_id = ANY($1::int[]) AND received_at > now() - make_interval(hours => $2)
        AND ($3::int IS NULL OR account_id = $3) AND reason IS DISTINCT FROM $4
      GROUP BY source_id`,
    [sourceIds, HEALTH_WINDOW_HOURS, accountId, BAD_SIGNATURE],
  );
  return new Map(rows.map((r) => [r.source_id, { received: r.received, refused: r.refused }]));
}

/**
 * Of `sourceIds`, the form sources that cannot price a lead: no default product line, or one whose sku is not an
 * active product of the account (or has no price of its own and a catalogue price under `minPrice`), and no mapping
 * entry whose target is an active product. Such a form refuses every submission that names no product.
 */
export async function unpricedForms(
  sequelize: Sequelize,
  sourceIds: number[],
  accountId: number | null,
  minPrice: number,
): Promise<Set<number>> {
  if (!sourceIds.length) return new Set();
  const rows = await select<{ id: number }>(
    sequelize,
    `SELECT s.id FROM lead_sources s
      WHERE s.id = ANY($1::int[]) AND ($2::int IS NULL OR s.account_id = $2) AND s.kind = 'form'
        AND NOT (jsonb_array_length(s.default_products) > 0 AND NOT EXISTS (
              SELECT 1 FROM jsonb_array_elements(s.default_products) d
               WHERE NOT EXISTS (SELECT 1 FROM products p
                                  WHERE p.account_id = s.account_id AND p.active AND p.sku = d->>'sku'
                                    AND (d ? 'price' OR p.price >= $3))))
        AND NOT EXISTS (SELECT 1 FROM jsonb_each_text(s.product_mapping) m
                          JOIN products p ON p.account_id = s.account_id AND p.active AND p.sku = m.value)`,
    [sourceIds, accountId, minPrice],
  );
  return new Set(rows.map((r) => r.id));
}

/** One page of a source's intake log within the kept 30 days, newest first, optionally of one outcome. */
export async function intakePage(
  sequelize: Sequelize,
  f: { sourceId: number; outcome?: IntakeOutcome; page: number; perPage: number },
): Promise<{ rows: IntakeRow[]; total: number }> {
  const where = `source_id = $1 AND received_at > now() - make_interval(days => $2)
    AND ($3::text IS NULL OR outcome = $3)`;
  const params = [f.sourceId, INTAKE_KEEP_DAYS, f.outcome ?? null];
  const rows = await select<IntakeRow>(
    sequelize,
    `SELECT id, source_id, received_at, outcome, reason, lead_reference, external_id, origin, client_ip, attempts,
            payload
       FROM lead_intake WHERE ${where} ORDER BY received_at DESC, id DESC OFFSET $4 LIMIT $5`,
    [...params, (f.page - 1) * f.perPage, f.perPage],
  );
  const [{ total }] = await select<{ total: number }>(
    sequelize,
    `SELECT count(*)::int AS total FROM lead_intake WHERE ${where}`,
    params,
  );
  return { rows, total };
}

/** Deletes intake entries older than the kept days, at most `batch` per call (a job repeats until none is left). */
export async function deleteOldIntake(sequelize: Sequelize, batch: number): Promise<number> {
  const rows = await sequelize.query<{ id: number }>(
    `DELETE FROM lead_intake WHERE id IN (
       SELECT id FROM lead_intake WHERE received_at <= now() - make_interval(days => $1) LIMIT $2)
     RETURNING id`,
    { bind: [INTAKE_KEEP_DAYS, batch], type: QueryTypes.SELECT },
  );
  return rows.length;
}
