import { Resource as SequelizeResource, convertFilter } from '@adminjs/sequelize';
import { BaseRecord, type Filter } from 'adminjs';
import { Op, type Model, type ModelStatic, type WhereOptions } from 'sequelize';

/** Rewrites the adapter's text filters (`LIKE '%x%'`) to case-insensitive `ILIKE` (trigram indexes serve both). */
function caseInsensitive(where: unknown): unknown {
  if (Array.isArray(where)) return where.map(caseInsensitive);
  if (!where || typeof where !== 'object') return where;
  const out: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(where)) {
    const value = (where as Record<string | symbol, unknown>)[key];
    out[key === Op.like ? Op.iLike : key] = caseInsensitive(value);
  }
  return out;
}

/**
 * The Sequelize adapter filters text with case-sensitive LIKE on PostgreSQL (adminjs-sequelizejs#107), so a search
 * for "sara" would miss "Sara". Same queries otherwise.
 */
export class IlikeResource extends SequelizeResource {
  private readonly model: ModelStatic<Model>;

  constructor(model: ModelStatic<Model>) {
    super(model as never);
    this.model = model;
  }

  static isAdapterFor(raw: unknown): boolean {
    return SequelizeResource.isAdapterFor(raw);
  }

  async count(filter: Filter): Promise<number> {
    return this.model.count({ where: caseInsensitive(convertFilter(filter)) as WhereOptions });
  }

  async find(filter: Filter, { limit = 20, offset = 0, sort = {} }: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: 'asc' | 'desc' } }): Promise<BaseRecord[]> {
    const { direction, sortBy } = sort;
    const rows = await this.model.findAll({
      where: caseInsensitive(convertFilter(filter)) as WhereOptions,
      limit,
      offset,
      order: [[sortBy ?? 'id', (direction ?? 'asc').toUpperCase()]],
    });
    return rows.map((row) => new BaseRecord(row.toJSON(), this));
  }
}
