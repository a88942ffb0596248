import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import type { SourceKind } from './lead-source.model.js';

/** What a shop's delivery needs of its source. `signing_secret` stays on the server. */
export interface StoreSource {
  id: number;
  account_id: number;
  name: string;
  signing_secret: string | null;
  product_mapping: unknown;
}

/** The active source of `kind` whose public key is `publicKey`, or null (unknown, inactive, or of another kind). */
export async function activeStoreSource(
  sequelize: Sequelize,
  kind: SourceKind,
  publicKey: string,
): Promise<StoreSource | null> {
  const [source] = await select<StoreSource>(
    sequelize,
    `SELECT id, account_id, name, signing_secret, product_mapping FROM lead_sources
      WHERE public_key = $1 AND kind = $2 AND active`,
    [publicKey, kind],
  );
  return source ?? null;
}

/** The lead a source made of the shop order `externalId` (index leads_source_external_key), or null. */
export async function leadOfOrder(
  sequelize: Sequelize,
  sourceId: number,
  externalId: string,
  transaction?: Transaction,
): Promise<{ id: number; reference: string } | null> {
  const [lead] = await select<{ id: number; reference: string }>(
    sequelize,
    'SELECT id::int AS id, reference FROM leads WHERE source_id = $1 AND external_id = $2',
    [sourceId, externalId],
    transaction,
  );
  return lead ?? null;
}
