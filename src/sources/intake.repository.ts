import type { Sequelize, Transaction } from 'sequelize';
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
