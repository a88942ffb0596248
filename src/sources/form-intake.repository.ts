import type { Sequelize, Transaction } from 'sequelize';
import { select } from '../query.js';
import type { SourceLine } from './lead-source.model.js';

/** What the form endpoint needs of a source. */
export interface FormSource {
  id: number;
  account_id: number;
  name: string;
  allowed_origins: string[];
  thank_you_url: string | null;
  default_products: SourceLine[];
  /** A page's sku → the account's sku (docs/lead-sources.md "The form endpoint"). */
  product_mapping: Record<string, string>;
}

/** The active form source with this public key, or none (unknown, inactive or a shop's key are alike). */
export async function activeFormSource(sequelize: Sequelize, publicKey: string): Promise<FormSource | null> {
  const [row] = await select<FormSource>(
    sequelize,
    `SELECT id, account_id, name, allowed_origins, thank_you_url, default_products, product_mapping
       FROM lead_sources
      WHERE public_key = $1 AND kind = 'form' AND active`,
    [publicKey],
  );
  return row ?? null;
}

/** The id and status the batch insert gave a lead (a duplicate phone makes it `duplicate`). */
export async function insertedLead(
  sequelize: Sequelize,
  transaction: Transaction,
  accountId: number,
  reference: string,
): Promise<{ id: number; status: string }> {
  const [row] = await select<{ id: number; status: string }>(
    sequelize,
    'SELECT id, status FROM leads WHERE account_id = $1 AND reference = $2',
    [accountId, reference],
    transaction,
  );
  return row;
}
