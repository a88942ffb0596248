import type { Model, ModelStatic } from 'sequelize';
import type { Actor } from './actor.js';
import { NotFoundError } from './errors.js';
import { accountScope } from './policy.js';

/** `%term%` with LIKE wildcards in the term escaped. */
export function likeContains(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The spec's `search_by` / `keyWord` rule, shared by the lead and order lists: reference exact, phone by digits
 * contained, full_name and city case-insensitively contained (trigram indexes), tracking_number exact.
 */
export function searchClause(alias: string, searchBy: string, keyWord: string, p: (v: unknown) => string): string {
  switch (searchBy) {
    case 'phone': {
      const digits = keyWord.replace(/\D/g, '');
      return digits ? `${alias}.phone_normalized LIKE ${p(likeContains(digits))}` : 'false';
    }
    case 'full_name':
      return `${alias}.full_name ILIKE ${p(likeContains(keyWord))}`;
    case 'city':
      return `${alias}.city ILIKE ${p(likeContains(keyWord))}`;
    case 'tracking_number':
      return `${alias}.tracking_number = ${p(keyWord)}`;
    default:
      return `${alias}.reference = ${p(keyWord.toUpperCase())}`;
  }
}

/** The distinct ids of a bulk request; one that is not a positive integer id makes the whole request "not found". */
/** A value that can be a row id (an integer column): anything else names no row, and PostgreSQL would refuse it. */
export const isRowId = (id: number): boolean => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647;

export function idsOrNotFound(ids: unknown[]): number[] {
  const wanted = [...new Set(ids.map(Number))];
  if (!wanted.every(isRowId)) throw new NotFoundError();
  return wanted;
}

/** One lead or order by reference or id, inside the actor's account; anything else is "not found". */
export async function findInScope<M extends Model>(
  model: ModelStatic<M>,
  actor: Actor,
  key: { reference: string } | { id: number },
): Promise<M> {
  const where = 'reference' in key ? { reference: String(key.reference).toUpperCase() } : { id: Number(key.id) };
  if ('id' in where && !isRowId(where.id as number)) throw new NotFoundError();
  const row = await model.findOne({ where: { ...where, ...accountScope(actor) } as never });
  if (!row) throw new NotFoundError();
  return row;
}
