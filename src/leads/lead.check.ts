import Joi from 'joi';
import type { FieldErrors } from '../errors.js';
import { fastValidator } from '../fast-validator.js';
import { addError, inputErrors, JOI_OPTIONS, mergeErrors, shownValue, toFieldErrors } from '../validation.js';
import type { LeadStatus } from './lead.model.js';
import { leadItemSchema, LINE_BOUNDS, type LeadItemInput, type ProductLineInput } from './lead.schemas.js';
import { keepPhone, uncallableNote } from '../phone.js';

/** A validated lead item with its products resolved against the catalogue; what insertLeads writes. */
export interface PreparedLead {
  phone: string;
  /** E.164; null for an uncallable phone (kept as typed, never a duplicate). */
  phone_normalized: string | null;
  full_name: string;
  city: string | null;
  city_id: number | null;
  area: string | null;
  address: string | null;
  data: { key?: string; value?: string }[];
  products: { product_id: number; sku: string; name: string; quantity: number; price: number }[];
  total: number;
  status?: LeadStatus;
  action_date?: Date | null;
  /** Why the system chose `status` (an uncallable phone): the creation history is then written by `system`. */
  system_note?: string | null;
}

/**
 * A new lead's phone fields and status: the status asked for (none: `new`), or, for a phone that is not possible in
 * `country` (shared/spec/decisions.md, "Uncallable phones"), the typed phone without an E.164 form, status `wrong`
 * and the reason, whatever status was asked.
 */
export function leadPhone(
  typed: string,
  country: string,
  status?: LeadStatus,
): Pick<PreparedLead, 'phone' | 'phone_normalized' | 'status' | 'system_note'> {
  // properties named, not spread: spreading the kept phone cost 2.5 µs a lead (a fifth of an import's validation)
  const { phone, phone_normalized } = keepPhone(typed, country);
  if (phone_normalized) return { phone, phone_normalized, status, system_note: null };
  return { phone, phone_normalized, status: 'wrong', system_note: uncallableNote(country) };
}

export interface CatalogueProduct {
  id: number;
  sku: string;
  name: string;
  price: number;
}
/** The account's products a sku that is not an active one's may have meant, by lower-case sku (skuError). */
export type SkuHints = Map<string, { sku: string; active: boolean }[]>;
/**
 * An account's active products by sku; `hints`, when read (activeProducts), the products of the skus it lacks under
 * their lower-case sku: inactive ones, and those of another case.
 */
export type Catalogue = Map<string, CatalogueProduct> & { hints?: SkuHints };

/**
 * The one sku rule of every entry point (REST leads and orders, import rows, dashboard, panel, lead sources; issue
 * 41): null for an active product's sku, else why not, naming the value. Skus are case-sensitive (the spec's "must
 * match"), so another case is refused, naming the sku that exists.
 */
export function skuError(sku: string, catalogue: Catalogue): string | null {
  if (catalogue.has(sku)) return null;
  const near = catalogue.hints?.get(sku.toLowerCase()) ?? [];
  const shown = shownValue(sku);
  if (near.some((p) => p.sku === sku)) return `Sku ${shown} belongs to an inactive product.`;
  const meant = near.find((p) => p.active) ?? near[0];
  if (meant) return `Sku ${shown} does not exist; did you mean ${shownValue(meant.sku)}?`;
  return `Sku ${shown} does not exist.`;
}

/**
 * A product line with its defaults (docs/decisions.md, "Product lines"): quantity 1, price the catalogue price. A
 * line whose sku is not in the catalogue keeps a placeholder price of 1, so that its sku is what gets reported.
 */
export function lineDefaults(line: ProductLineInput, catalogue: Catalogue): Required<ProductLineInput> {
  return {
    sku: line.sku,
    quantity: line.quantity ?? 1,
    price: line.price ?? catalogue.get(line.sku.trim())?.price ?? 1,
  };
}

/**
 * Validated product lines (schema productLine) resolved against the account's active products, defaults applied; or
 * null, with errors added under `${path}.${j}.field` (a sku skuError refuses, a catalogue price out of bounds).
 */
export function resolveLines(
  lines: ProductLineInput[],
  catalogue: Catalogue,
  path: string,
  errors: FieldErrors,
): PreparedLead['products'] | null {
  let ok = true;
  const resolved = lines.map((line, j) => {
    const product = catalogue.get(line.sku);
    if (!product) {
      ok = false;
      addError(errors, `${path}.${j}.sku`, skuError(line.sku, catalogue)!);
      return null;
    }
    const { quantity, price } = lineDefaults(line, catalogue);
    if (price < LINE_BOUNDS.price.min) {
      ok = false;
      const message = `The ${path}.${j}.price field is required: the catalogue price of ${product.sku} is ${price}.`;
      addError(errors, `${path}.${j}.price`, message);
    }
    return { product_id: product.id, sku: product.sku, name: product.name, quantity, price };
  });
  return ok ? (resolved as PreparedLead['products']) : null;
}

/** A lead's total: the sum of quantity × price, in cents to avoid float drift. */
export const totalOf = (lines: { quantity: number; price: number }[]) =>
  Math.round(lines.reduce((s, l) => s + l.quantity * l.price * 100, 0)) / 100;

/** The skus an unvalidated list of items names (what the catalogue lookup needs). */
export function namedSkus(items: unknown[]): string[] {
  const skus = new Set<string>();
  for (const item of items) {
    const products = (item as { products?: unknown })?.products;
    if (!Array.isArray(products)) continue;
    for (const p of products) if (typeof p?.sku === 'string') skus.add(p.sku.trim());
  }
  return [...skus];
}

const fastItems = new Map<Joi.Schema, (input: unknown) => unknown>();
const fastItem = (schema: Joi.Schema) =>
  fastItems.get(schema) ?? fastItems.set(schema, fastValidator(schema)).get(schema)!;

/**
 * The items converted by leadItemSchema: each by its fast path when it vouches for the item, otherwise by Joi, alone
 * (so one bad row does not send its whole batch to Joi). Joi's errors are keyed `${path}.${i}` as if the whole list had
 * been validated: each item is validated as `${path}[0]` and its error paths are moved to its own index (toFieldErrors
 * writes the path where the message names the label). Holes are items too (Joi's "must not contain empty items").
 */
function validItems(
  items: unknown[],
  path: string,
  schema: Joi.ObjectSchema,
): { values: LeadItemInput[]; error?: Joi.ValidationError } {
  const values = Array.from(items, fastItem(schema)) as LeadItemInput[];
  const details: Joi.ValidationErrorItem[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== undefined) continue;
    const { value, error } = oneItem(path, schema).validate({ [path]: [items[i]] }, JOI_OPTIONS);
    values[i] = value[path][0];
    for (const d of error?.details ?? []) details.push({ ...d, path: [path, i, ...d.path.slice(2)] });
  }
  return {
    values,
    error: details.length
      ? new Joi.ValidationError(details.map((d) => d.message).join('. '), details, items)
      : undefined,
  };
}
const wrappers = new Map<Joi.Schema, Map<string, Joi.ObjectSchema>>();
const oneItem = (path: string, schema: Joi.ObjectSchema) => {
  const byPath = wrappers.get(schema) ?? wrappers.set(schema, new Map()).get(schema)!;
  return byPath.get(path) ?? byPath.set(path, Joi.object({ [path]: Joi.array().items(schema) })).get(path)!;
};

/**
 * Validates lead items (spec Lead table; every sku must be an active product of the account, i.e. in `catalogue`),
 * collecting errors keyed `${path}.${i}.field` instead of throwing. Phones are read in `country`, the account's
 * phone_country; an uncallable one makes its lead `wrong` (leadPhone), never an error. Pure: the REST path and the
 * import's worker thread both use it. `schema`: the item's rule (a lead source's item may have no product line).
 */
export function checkLeadItems(
  items: unknown[],
  path: string,
  catalogue: Catalogue,
  country: string,
  schema: Joi.ObjectSchema = leadItemSchema,
): { prepared: (PreparedLead | null)[]; errors: FieldErrors } {
  const { values, error } = validItems(items, path, schema);
  const errors: FieldErrors = error ? toFieldErrors(error) : {};
  const invalid = new Set(error?.details.map((d) => Number(d.path[1])) ?? []);
  items.forEach((item, i) => {
    const unfit = inputErrors(item, `${path}.${i}`);
    if (!Object.keys(unfit).length) return;
    invalid.add(i);
    mergeErrors(errors, unfit);
  });
  const prepared = values.map((v, i) => {
    if (invalid.has(i)) return null;
    const lines = resolveLines(v.products, catalogue, `${path}.${i}.products`, errors);
    if (!lines) return null;
    const { phone, phone_normalized, status, system_note } = leadPhone(v.phone, country);
    return {
      phone,
      phone_normalized,
      status,
      system_note,
      full_name: v.full_name,
      city: v.city ?? null,
      city_id: null,
      area: v.area ?? null,
      address: v.address ?? null,
      data: v.data ?? [],
      products: lines,
      total: totalOf(lines),
    } satisfies PreparedLead;
  });
  return { prepared, errors };
}
