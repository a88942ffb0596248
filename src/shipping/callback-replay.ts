import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError } from '../errors.js';

/** A verified carrier callback's signature and the moment it was signed (its X-Timestamp). */
export interface CallbackSignature {
  signature: string;
  signedAt: Date;
}

/**
 * Drops the signatures signed more than two windows ago: the window check refuses those callbacks anyway (the margin
 * covers clocks that differ between processes). Run before the callback's transaction, never holding its locks.
 */
export async function pruneCallbacks(sequelize: Sequelize, windowSeconds: number): Promise<void> {
  await sequelize.query('DELETE FROM carrier_callback_signatures WHERE signed_at < $1', {
    bind: [new Date(Date.now() - 2 * windowSeconds * 1000)],
  });
}

/**
 * Records a verified callback's signature in the transaction that applies it, or refuses it as a replay (409). The
 * primary key (company, signature) decides across processes: a second insert waits for the first transaction and
 * conflicts once it commits; a callback whose changes rolled back (refused, or an outage) was not applied and may be
 * sent again. It is the transaction's first statement, so two deliveries of one callback never lock orders at once.
 */
export async function recordCallback(
  sequelize: Sequelize,
  transaction: Transaction,
  companyId: number,
  signed: CallbackSignature,
): Promise<void> {
  const inserted = await sequelize.query(
    `INSERT INTO carrier_callback_signatures (shipping_company_id, signature, signed_at) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING 1`,
    { bind: [companyId, signed.signature, signed.signedAt], transaction, type: QueryTypes.SELECT },
  );
  if (!inserted.length) throw new ConflictError('This callback was already received (same signature).');
}
