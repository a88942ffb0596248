import { literal, type Model, type ModelStatic, type WhereOptions } from 'sequelize';

/**
 * Filters on what a panel resource computes rather than stores (a customer is risky by its account's thresholds, or
 * blocked by a row of another table): a property the resource offers as a filter with the values `true` / `false`,
 * answered by an SQL condition over the model's row (Sequelize names it after the model, `"Customer"`). The scoped
 * adapter (scoped-resource.ts) adds it to the actor's scope like any other filter; a value other than `true` or `false`
 * matches nothing.
 */
export type ComputedCondition = (row: string) => string;

const COMPUTED = new WeakMap<object, Record<string, ComputedCondition>>();

/** Declares the computed filters of a model; answers the model, to be the resource of its panel options. */
export function withComputedFilters<M extends ModelStatic<Model>>(
  model: M,
  filters: Record<string, ComputedCondition>,
): M {
  // no prototype: a filter named `constructor` is not a computed one
  COMPUTED.set(model, Object.assign(Object.create(null) as Record<string, ComputedCondition>, filters));
  return model;
}

/** The computed filters of a model, by property (none for most). */
const NONE: Record<string, ComputedCondition> = Object.freeze(Object.create(null) as Record<string, ComputedCondition>);
export const computedFiltersOf = (model: object): Record<string, ComputedCondition> => COMPUTED.get(model) ?? NONE;

/** The condition of a computed filter's value: the condition for `true`, its negation for `false`, else null. */
export function computedCondition(model: ModelStatic<Model>, condition: ComputedCondition, value: unknown) {
  if (value !== 'true' && value !== 'false') return null;
  const sql = condition(`"${model.name}"`);
  return literal(value === 'true' ? `(${sql})` : `NOT (${sql})`) as unknown as WhereOptions;
}
