import type { Sequelize } from 'sequelize';
import { select } from '../query.js';
import type { SourceKind } from './lead-source.model.js';

/** A lead's source as its show names it (null: created over REST, the panel, an import, or its source deleted). */
export interface LeadSourceRef {
  id: number;
  kind: SourceKind;
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
