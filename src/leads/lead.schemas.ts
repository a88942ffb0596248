import Joi from 'joi';
import { pageKeys } from '../pagination.js';
import { isoDate, oneOf } from '../validation.js';
import { actionDate } from './call-back.js';
import { LEAD_STATUSES } from './lead.model.js';

/**
 * A call-back time is required when the status is call_later (shared/spec/decisions.md): the one rule of every entry
 * point (REST, dashboard, panel, work queue), refused as Laravel's required_if says it.
 */
export const requiredForCallLater = (schema: Joi.Schema) =>
  schema.when('status', {
    is: 'call_later',
    // null and '' count as absent here: one error, not "required" beside "must be a string"
    then: Joi.required()
      .empty(Joi.valid(null, ''))
      .messages({ 'any.required': 'The {{#label}} field is required when status is call_later.' }),
  });

/** The bounds of a product line's quantity and price (spec Lead table). */
export const LINE_BOUNDS = { quantity: { min: 1, max: 999 }, price: { min: 1, max: 999_999 } } as const;
const quantity = Joi.number().integer().min(LINE_BOUNDS.quantity.min).max(LINE_BOUNDS.quantity.max);
const price = Joi.number().min(LINE_BOUNDS.price.min).max(LINE_BOUNDS.price.max).precision(2);

/**
 * A product line, the one rule of every entry point (docs/decisions.md, "Product lines"): a sku (an active product of
 * the account, checked by resolveLines), a quantity and a price within LINE_BOUNDS. `strict` is the REST contract
 * (spec: quantity and price required); elsewhere an absent quantity is 1 and an absent price the catalogue price
 * (lineDefaults).
 */
export const productLine = (strict: boolean) =>
  Joi.object({
    sku: Joi.string().trim().min(1).max(100).required(),
    quantity: strict ? quantity.required() : quantity,
    price: strict ? price.required() : price,
  });
/** At most 100 product lines (spec); the REST item also requires at least one. */
export const productLines = (strict: boolean) => Joi.array().max(100).items(productLine(strict));
/** A product line as the dashboard, the panel and the import may send it: quantity and price default. */
export interface ProductLineInput {
  sku: string;
  quantity?: number;
  price?: number;
}

/** One lead item, exactly the spec's Lead table. Used by REST create, order create and import rows. */
export const leadItemSchema = Joi.object({
  phone: Joi.string().trim().min(7).max(100).required(),
  full_name: Joi.string().trim().min(3).max(100).required(),
  city: Joi.string().trim().min(3).max(100),
  area: Joi.string().trim().min(3).max(100),
  address: Joi.string().trim().min(5).max(100),
  data: Joi.array()
    .max(100)
    .items(
      Joi.object({
        key: Joi.string().min(1).max(100),
        value: Joi.string().min(1).max(100),
      }),
    ),
  products: productLines(true).min(1).required(),
});
/**
 * A lead source's item (issue 34, docs/lead-sources.md): the Lead table, except that it may have no product line. A
 * shop order whose lines all wait for a mapping still becomes a lead (its lines kept in `data`); like any lead without
 * products, it cannot be confirmed until it has one.
 */
export const sourceLeadItemSchema = leadItemSchema.keys({ products: productLines(true).required() });
export interface LeadItemInput {
  phone: string;
  full_name: string;
  city?: string;
  area?: string;
  address?: string;
  data?: { key?: string; value?: string }[];
  products: { sku: string; quantity: number; price: number }[];
}

export const MAX_BULK = 1000;

/** A bulk request's list: 1 to MAX_BULK items, required. */
export const bulkOf = (item: Joi.Schema) => Joi.array().min(1).max(MAX_BULK).required().items(item);
/** The references or ids a bulk write names. */
export const bulkReferences = () => bulkOf(Joi.string().trim().max(12).required());
export const bulkIds = () => bulkOf(Joi.number().integer().positive().required());

/** The envelope only; items are validated one by one so every item's errors are reported with its index. */
export const createBodySchema = (key: string) =>
  Joi.object({
    [key]: bulkOf(Joi.any()),
  });

export const leadStatus = oneOf(LEAD_STATUSES);

export const updateBodySchema = Joi.object({
  leads: bulkOf(
    Joi.object({
      reference: Joi.string().trim().max(12).required(),
      status: leadStatus.required(),
      action_date: requiredForCallLater(actionDate),
    }),
  ),
});
export interface StatusChangeInput {
  reference: string;
  status: string;
  action_date?: string;
}

export const deleteBodySchema = Joi.object({
  references: bulkReferences(),
});

export const deleteIdsSchema = Joi.object({
  ids: bulkIds(),
});

export const SEARCH_BY = ['reference', 'phone', 'full_name', 'city'] as const;

export const restListQuerySchema = Joi.object({
  ...pageKeys,
  search_by: Joi.string().valid(...SEARCH_BY),
  keyWord: Joi.string().trim().max(100).allow(''),
  source_id: Joi.number().integer().positive().max(2_147_483_647),
});

/**
 * The dashboard list: the spec's perPage plus its filters (decisions: status, city, dates, free search, admin account).
 */
export const dashboardListQuerySchema = Joi.object({
  page: pageKeys.page,
  perPage: pageKeys.per_page,
  status: leadStatus,
  city_id: Joi.number().integer().positive(),
  created_from: isoDate(),
  created_to: isoDate(),
  search: Joi.string().trim().max(100).allow(''),
  search_by: Joi.string().valid(...SEARCH_BY),
  keyWord: Joi.string().trim().max(100).allow(''),
  account_id: Joi.number().integer().positive(),
  source_id: Joi.number().integer().positive().max(2_147_483_647),
});

export interface LeadFilters {
  search_by?: (typeof SEARCH_BY)[number];
  keyWord?: string;
  status?: string;
  city_id?: number;
  created_from?: Date | string;
  created_to?: Date | string;
  search?: string;
  account_id?: number;
  /** Leads of one lead source (another account's finds nothing: the account filter stays). */
  source_id?: number;
  /** Not a query key: set by the service (the account's phone_country) to read a phone search in. */
  phone_country?: string;
}

export const dashboardCreateSchema = Joi.object({
  name: Joi.string().trim().min(7).max(100).required(),
  status: leadStatus.required(),
  full_name: Joi.string().trim().min(3).max(100),
  city_id: Joi.number().integer().positive(),
  area: Joi.string().trim().min(3).max(100),
  address: Joi.string().trim().min(5).max(100),
  action_date: requiredForCallLater(actionDate),
  account_id: Joi.number().integer().positive(),
  products: productLines(false),
});
export interface DashboardCreateInput {
  name: string;
  status: string;
  full_name?: string;
  city_id?: number;
  area?: string;
  address?: string;
  action_date?: string;
  account_id?: number;
  products?: ProductLineInput[];
}

export const dashboardUpdateSchema = Joi.object({
  status: leadStatus.required(),
  full_name: Joi.string().trim().min(3).max(100).required(),
  phone: Joi.string().trim().min(7).max(100).required(),
  city_id: Joi.number().integer().positive().allow(null, ''),
  area: Joi.string().trim().min(3).max(100).allow(null, ''),
  address: Joi.string().trim().min(5).max(100).allow(null, ''),
  action_date: requiredForCallLater(actionDate.allow(null, '')),
  /** When present, the lead's product lines become these (an empty list removes them). */
  products: productLines(false),
});
export interface DashboardUpdateInput {
  status: string;
  full_name: string;
  phone: string;
  city_id?: number | null | '';
  area?: string | null;
  address?: string | null;
  action_date?: string | null;
  products?: ProductLineInput[];
}
