import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { IntakeOutcome } from './lead-source.model.js';

/** One submission a source received and what became of it (docs/lead-sources.md, "Intake log"). */
export interface IntakeEntry {
  accountId: number;
  sourceId: number;
  outcome: IntakeOutcome;
  /** Why it was refused (or what it duplicated), in words. */
  reason?: string | null;
  leadId?: number | null;
  leadReference?: string | null;
  externalId?: string | null;
  clientIp?: string | null;
  origin?: string | null;
  /** The submission as received, cut to what the log keeps. */
  payload?: unknown;
}

/**
 * The reason of a shop delivery whose signature is wrong: counted, and left out of the source's health (anyone can post
 * to a shop address; a seller's shop that signs wrongly shows as its refusals' reason in the log all the same).
 */
export const BAD_SIGNATURE = 'bad signature';

/** The longest reason, origin and client address the log keeps (the columns' widths). */
const WIDTH = { reason: 500, origin: 255, ip: 64, external: 100 };
const cut = (text: string | null | undefined, width: number) => (text == null ? null : String(text).slice(0, width));

/** Records one submission (in `transaction` when the outcome is written with the lead, else on its own). */
export async function recordIntake(sequelize: Sequelize, entry: IntakeEntry, transaction?: Transaction): Promise<void> {
  await sequelize.query(
    `INSERT INTO lead_intake (account_id, source_id, outcome, reason, lead_id, lead_reference, external_id, client_ip,
                              origin, payload)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)`,
    {
      bind: [
        entry.accountId,
        entry.sourceId,
        entry.outcome,
        cut(entry.reason, WIDTH.reason),
        entry.leadId ?? null,
        entry.leadReference ?? null,
        cut(entry.externalId, WIDTH.external),
        cut(entry.clientIp, WIDTH.ip),
        cut(entry.origin, WIDTH.origin),
        entry.payload === undefined ? null : JSON.stringify(entry.payload),
      ],
      transaction,
    },
  );
}

/**
 * Counts one submission that is not kept whole (a rate-limited one, a shop delivery with a bad signature, a refusal
 * past the source's hourly cap): one row per source, outcome, client address and minute, its `attempts` counted up,
 * the latest reason and origin, never a payload. What a flood costs the log is one row per address and minute.
 */
export async function countIntake(sequelize: Sequelize, entry: Omit<IntakeEntry, 'payload'>): Promise<void> {
  await sequelize.query(
    `INSERT INTO lead_intake (account_id, source_id, outcome, reason, client_ip, origin, counted_minute)
     VALUES ($1, $2, $3, $4, $5, $6, date_trunc('minute', now()))
     ON CONFLICT (source_id, counted_minute, outcome, client_ip) WHERE counted_minute IS NOT NULL
     DO UPDATE SET attempts = lead_intake.attempts + 1, reason = EXCLUDED.reason, origin = EXCLUDED.origin`,
    {
      bind: [
        entry.accountId,
        entry.sourceId,
        entry.outcome,
        cut(entry.reason, WIDTH.reason),
        cut(entry.clientIp, WIDTH.ip),
        cut(entry.origin, WIDTH.origin),
      ],
    },
  );
}

/** Whether the source's log already holds `cap` whole refusals in the last hour (a bounded count: at most `cap`). */
export async function refusalsCapped(sequelize: Sequelize, sourceId: number, cap: number): Promise<boolean> {
  const [row] = await sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM lead_intake
        WHERE source_id = $1 AND received_at > now() - interval '1 hour'
          AND outcome IN ('refused', 'rate_limited') AND counted_minute IS NULL
        LIMIT $2) t`,
    { bind: [sourceId, cap], type: QueryTypes.SELECT },
  );
  return row.n >= cap;
}

/**
 * Logs a refusal: whole (with its payload) while the source's log holds fewer than `cap` whole refusals in the last
 * hour, counted past it (one row per minute, no address: a flood from many addresses costs 60 rows an hour).
 */
export async function recordRefusal(sequelize: Sequelize, entry: IntakeEntry, cap: number): Promise<void> {
  if (!(await refusalsCapped(sequelize, entry.sourceId, cap))) return recordIntake(sequelize, entry);
  const { payload: _payload, ...counted } = entry;
  await countIntake(sequelize, { ...counted, clientIp: null });
}
