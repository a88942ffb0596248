import type { Sequelize } from 'sequelize';
import { select } from '../query.js';

/** A lead's source as its show names it (null: created over REST, the panel, an import, or its source deleted). */
export interface LeadSourceRef {
  id: number;
  /** One of SOURCE_KINDS (src/sources/lead-source.model.ts, a floor above: leads read the name, not the rules). */
  kind: string;
  name: string;
}

/** The source of a lead of `accountId` (the account too, so a row of another account can never be named). */
export async function leadSourceRef(
  sequelize: Sequelize,
  accountId: number,
  sourceId: number | null,
): Promise<LeadSourceRef | null> {
  if (sourceId == null) return null;
  const [row] = await select<LeadSourceRef>(
    sequelize,
    'SELECT id, kind, name FROM lead_sources WHERE id = $1 AND account_id = $2',
    [sourceId, accountId],
  );
  return row ?? null;
}

/**
 * A source's UTM fields also as the lead's data entries, after the ones it has (an entry of the same key is kept as
 * it is): the KPI page's source breakdown reads `utm_source` from a lead's data (migration 20261129000000), where REST
 * and import leads carry it, so form and shop leads are counted by their campaign source too.
 */
export function withUtmData<L extends { data: { key?: string; value?: string }[] }>(
  leads: L[],
  utm: Record<string, string> | null | undefined,
): L[] {
  if (!utm) return leads;
  return leads.map((lead) => {
    const named = new Set(lead.data.map((d) => d.key?.toLowerCase()));
    const extra = Object.entries(utm)
      .filter(([key]) => !named.has(key))
      .map(([key, value]) => ({ key, value }));
    return extra.length ? { ...lead, data: [...lead.data, ...extra] } : lead;
  });
}
