import { Resource as SequelizeResource } from '@adminjs/sequelize';
import { BaseRecord, ForbiddenError as AdminForbiddenError, type ActionContext, type Filter } from 'adminjs';
import { Op, literal, type FindAttributeOptions, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { accountScope } from '../../src/policy.js';
import { actorOf, asSeenBy, type PanelAdmin } from './panel-kit.js';
import { FALLBACK_ZONE } from '../../src/time-zones.js';
import { dateRange, intValue, isIntType, likePattern, phoneCondition } from './filter-values.js';
import { computedCondition, computedFiltersOf } from './computed-filters.js';
import { INTAKE_KEEP_DAYS } from '../../src/sources/source-health.js';

/** Columns the panel never reads: hashes, secrets, keys and server paths (matched by name, so new ones are covered). */
const WITHHELD = /password|hash|secret|api_key|file_path/;
/** Withheld columns a user sets and replaces: the panel reads `<column>_state` ('set' / 'not set') instead. */
const WRITE_ONLY = /secret|api_key/;
/** Reference data every role reads and only services write; any other model must carry `account_id`. */
const SHARED_MODELS = new Set(['City']);
/**
 * Rows a model keeps only for a while: the panel never shows one past its time, even before the hourly job deletes it
 * (the intake log's 30 days, src/sources/source-health.ts).
 */
const KEPT: Record<string, WhereOptions> = {
  LeadIntake: { received_at: { [Op.gt]: literal(`now() - make_interval(days => ${INTAKE_KEEP_DAYS})`) } },
};
const MAX_PER_PAGE = 500;
const MAX_OFFSET = 10_000_000;

type Attr = { type: { key: string }; fieldName: string };
type Sort = { sortBy?: string; direction?: string };

function clamp(value: unknown, min: number, max: number, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) ? Math.min(Math.max(n, min), max) : fallback;
}

/**
 * The one door between the panel and the database. Every read AdminJS makes (list, search, show, edit, delete, bulk
 * and custom actions, reference lookups and filter population) passes the action context, and every query this
 * adapter runs carries the actor's account scope, built here from the session's user. The request only contributes
 * filters on allow-listed properties (visible in the panel's filter, or the title for search), each value parsed
 * by its column type (a value that does not parse matches nothing); other keys are ignored. Withheld columns are
 * never selected. Writes go through the services (panel-kit's serviceActions), so the adapter's create/update/delete
 * refuse.
 */
export class ScopedResource extends SequelizeResource {
  private readonly model: ModelStatic<Model>;
  private readonly attrs: Record<string, Attr>;
  private readonly tenantColumn: 'account_id' | 'id' | null;
  private readonly selected: FindAttributeOptions;
  private readonly states: string[];
  private allowedFilters: Map<string, { values: string[] | null }> | undefined;

  constructor(model: ModelStatic<Model>) {
    super(model as never);
    this.model = model;
    this.attrs = model.getAttributes() as unknown as Record<string, Attr>;
    if (this.attrs.account_id) this.tenantColumn = 'account_id';
    else if (model.name === 'Account') this.tenantColumn = 'id';
    else if (SHARED_MODELS.has(model.name)) this.tenantColumn = null;
    else throw new Error(`Panel resource ${model.name} has no account_id: declare it shared or give it an account.`);
    const withheld = Object.keys(this.attrs).filter((k) => WITHHELD.test(k));
    const writeOnly = withheld.filter((k) => WRITE_ONLY.test(k));
    this.states = writeOnly.map((k) => `${k}_state`);
    this.selected = {
      exclude: withheld,
      include: writeOnly.map((k) => [literal(`("${k}" IS NOT NULL AND "${k}" <> '')`), `${k}_state`]),
    };
  }

  /** What AdminJS sends a page about this resource is cut to its viewer (asSeenBy), for every resource at once. */
  assignDecorator(...args: Parameters<SequelizeResource['assignDecorator']>): void {
    super.assignDecorator(...args);
    const decorated = this.decorate();
    const toJSON = decorated.toJSON.bind(decorated);
    decorated.toJSON = (currentAdmin) => asSeenBy(toJSON(currentAdmin), currentAdmin);
  }

  static isAdapterFor(raw: unknown): boolean {
    return SequelizeResource.isAdapterFor(raw);
  }

  /** The account condition of the acting user; a call without an actor is refused rather than left unscoped. */
  scopeOf(context?: ActionContext): WhereOptions {
    if (!context?.currentAdmin) throw new AdminForbiddenError('The panel reads data only for a signed-in user.');
    const { account_id } = accountScope(actorOf(context)); // the one tenancy rule (src/policy.ts)
    const tenant = this.tenantColumn && account_id ? { [this.tenantColumn]: account_id } : {};
    const kept = KEPT[this.model.name];
    return kept ? { [Op.and]: [tenant, kept] } : tenant;
  }

  /** The properties a request may filter on: those the panel offers as filters, and the title (search). */
  private filterable(): Map<string, { values: string[] | null }> {
    // Built once: the decorator (the resource's options) exists only after AdminJS has loaded, and never changes.
    this.allowedFilters ??= this.allowedFiltersOf();
    return this.allowedFilters;
  }

  private allowedFiltersOf(): Map<string, { values: string[] | null }> {
    const decorated = this.decorate();
    const props = [...decorated.getProperties({ where: 'filter' }), decorated.titleProperty()];
    const computed = computedFiltersOf(this.model);
    return new Map(
      props
        .filter((p) => p && (this.attrs[p.propertyPath] || computed[p.propertyPath]) && !WITHHELD.test(p.propertyPath))
        .map((p) => [p.propertyPath, { values: p.availableValues()?.map((v) => String(v.value)) ?? null }]),
    );
  }

  /**
   * One condition per allowed filter. A value that does not parse for its column (a 201-character search, a NUL, a
   * list, a bad date) matches nothing rather than being dropped, so a bad filter never widens the answer; filters on
   * properties that are not allowed (hidden columns, unknown keys) are ignored.
   */
  private conditions(filter: Filter | undefined, zone: string): WhereOptions[] {
    const allowed = this.filterable();
    const computed = computedFiltersOf(this.model);
    const out: WhereOptions[] = [];
    for (const { path, value } of Object.values(filter?.filters ?? {})) {
      const rule = allowed.get(path);
      const attr = this.attrs[path];
      if (rule && computed[path]) {
        out.push(computedCondition(this.model, computed[path], value) ?? literal('FALSE'));
        continue;
      }
      if (!rule || !attr) continue;
      out.push(this.condition(path, attr.type.key, rule.values, value, zone) ?? literal('FALSE'));
    }
    return out;
  }

  private condition(
    path: string,
    typeKey: string,
    values: string[] | null,
    value: unknown,
    zone: string,
  ): WhereOptions | null {
    if (values) return typeof value === 'string' && values.includes(value) ? { [path]: value } : null;
    if (path === 'phone' && this.attrs.phone_normalized) return phoneCondition(value);
    if (isIntType(typeKey)) {
      const n = intValue(value, typeKey);
      return n === null ? null : { [path]: n };
    }
    if (typeKey === 'BOOLEAN') return value === 'true' || value === 'false' ? { [path]: value === 'true' } : null;
    if (typeKey === 'DATE' || typeKey === 'DATEONLY') {
      const range = dateRange(value, zone);
      return range && { [path]: range };
    }
    if (typeKey === 'DECIMAL' || typeKey === 'FLOAT' || typeKey === 'DOUBLE') {
      return typeof value === 'string' && /^-?\d{1,12}(\.\d{1,4})?$/.test(value) ? { [path]: value } : null;
    }
    if (typeKey === 'STRING' || typeKey === 'TEXT' || typeKey === 'CHAR') {
      const pattern = likePattern(value);
      return pattern === null ? null : { [path]: { [Op.iLike]: pattern } };
    }
    return null;
  }

  private where(filter: Filter | undefined, context?: ActionContext): WhereOptions {
    // days of a date filter are the viewer's account's days (src/time-zones.ts)
    const zone = (context?.currentAdmin as PanelAdmin | undefined)?.timeZone ?? FALLBACK_ZONE;
    return { [Op.and]: [this.scopeOf(context), ...this.conditions(filter, zone)] };
  }

  /** Sorting only by what the list shows (or the id / the resource's default), in one of the two directions. */
  private order(sort: Sort = {}): [string, string][] {
    const decorated = this.decorate();
    const sortable = new Set(
      decorated
        .getListProperties()
        .filter((p) => p.isSortable())
        .map((p) => p.propertyPath),
    );
    const fallback = decorated.options.sort?.sortBy ?? this.primaryKey();
    sortable.add(fallback);
    const by =
      sort.sortBy && sortable.has(sort.sortBy) && this.attrs[sort.sortBy] && !WITHHELD.test(sort.sortBy)
        ? sort.sortBy
        : fallback;
    const direction =
      sort.direction === 'desc' || sort.direction === 'asc'
        ? sort.direction
        : (decorated.options.sort?.direction ?? 'asc');
    return [
      [by, direction.toUpperCase()],
      [this.primaryKey(), direction.toUpperCase()],
    ];
  }

  private record(row: Model): BaseRecord {
    const params: Record<string, unknown> = row.toJSON();
    for (const state of this.states) params[state] = params[state] ? 'set' : 'not set';
    return new BaseRecord(params, this);
  }

  private validIds(ids: unknown[]): string[] {
    const pk = this.attrs[this.primaryKey()];
    return ids.map((id) => intValue(id, pk.type.key)).filter((id): id is string => id !== null);
  }

  async count(filter: Filter, context?: ActionContext): Promise<number> {
    return this.model.count({ where: this.where(filter, context) });
  }

  async find(
    filter: Filter,
    options: { limit?: number; offset?: number; sort?: Sort } = {},
    context?: ActionContext,
  ): Promise<BaseRecord[]> {
    const rows = await this.model.findAll({
      where: this.where(filter, context),
      attributes: this.selected,
      limit: clamp(options.limit, 1, MAX_PER_PAGE, 10),
      offset: clamp(options.offset, 0, MAX_OFFSET, 0),
      order: this.order(options.sort),
    });
    return rows.map((row) => this.record(row));
  }

  async findOne(id: unknown, context?: ActionContext): Promise<BaseRecord | null> {
    const [valid] = this.validIds([id]);
    const scope = this.scopeOf(context);
    if (!valid) return null;
    const row = await this.model.findOne({
      where: { [Op.and]: [scope, { [this.primaryKey()]: valid }] },
      attributes: this.selected,
    });
    return row ? this.record(row) : null;
  }

  async findMany(ids: unknown[], context?: ActionContext): Promise<BaseRecord[]> {
    const valid = this.validIds(Array.isArray(ids) ? ids : []);
    const scope = this.scopeOf(context);
    if (!valid.length) return [];
    const rows = await this.model.findAll({
      where: { [Op.and]: [scope, { [this.primaryKey()]: { [Op.in]: valid } }] },
      attributes: this.selected,
    });
    const records = rows.map((row) => this.record(row));
    return this.populatedInFull(context) ? records : records.map((r) => this.titleOnly(r));
  }

  /**
   * AdminJS fills a record's references (an order's shipping company, its creator) with the whole referenced record,
   * through this findMany, in the action of the other resource. In full only for a role that may view this resource;
   * any other sees its id and title (an agent reads "Carrier X" on an order, not the carrier's endpoint).
   */
  private populatedInFull(context?: ActionContext): boolean {
    if (!context?.resource || context.resource === this) return true;
    return this.decorate().actions.show?.isAccessible(context.currentAdmin) === true;
  }

  private titleOnly(record: BaseRecord): BaseRecord {
    const title = this.decorate().titleProperty().name();
    return new BaseRecord({ [this.primaryKey()]: record.id(), [title]: record.get(title) }, this);
  }

  async populate(): Promise<never> {
    throw new AdminForbiddenError('The panel populates references through the scoped findMany.');
  }

  async findById(): Promise<never> {
    throw new AdminForbiddenError('The panel reads records through the scoped findOne.');
  }

  async create(): Promise<never> {
    throw new AdminForbiddenError('The panel writes through the services.');
  }

  async update(): Promise<never> {
    throw new AdminForbiddenError('The panel writes through the services.');
  }

  async delete(): Promise<never> {
    throw new AdminForbiddenError('The panel writes through the services.');
  }
}
