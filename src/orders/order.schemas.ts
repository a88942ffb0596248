import Joi from 'joi';
import { bulkIds, bulkOf, bulkReferences, leadItemSchema } from '../leads/lead.schemas.js';
import { pageKeys } from '../pagination.js';
import { oneOf } from '../validation.js';
import { ORDER_STATUSES } from './order.model.js';

export const orderStatus = oneOf(ORDER_STATUSES);

/** An order of POST /orders: a lead's fields, and the code of the warehouse it ships from (none: the default). */
export const orderItemSchema = leadItemSchema.keys({ warehouse: Joi.string().trim().min(1).max(30) });

/** Status changes naming each order by `reference` (REST) or by `id` (the panel). */
export const orderUpdateBodySchema = (key: 'reference' | 'id') =>
  Joi.object({
    orders: bulkOf(
      Joi.object({
        [key]:
          key === 'reference' ? Joi.string().trim().max(12).required() : Joi.number().integer().positive().required(),
        status: orderStatus.required(),
        tracking_number: Joi.string().trim().min(1).max(100),
      }),
    ),
  });
export interface OrderStatusChange {
  reference?: string;
  id?: number;
  status: string;
  tracking_number?: string;
}

export const ORDER_SEARCH_BY = ['reference', 'phone', 'full_name', 'city', 'tracking_number'] as const;

export const orderListQuerySchema = Joi.object({
  ...pageKeys,
  search_by: Joi.string().valid(...ORDER_SEARCH_BY),
  keyWord: Joi.string().trim().max(100).allow(''),
  status: orderStatus,
  account_id: Joi.number().integer().positive(),
});
export interface OrderFilters {
  page: number;
  per_page: number;
  search_by?: (typeof ORDER_SEARCH_BY)[number];
  keyWord?: string;
  status?: string;
  account_id?: number;
  /** Not a query key: set by the service (the account's phone_country) to read a phone search in. */
  phone_country?: string;
}

const bulkKeys = {
  references: bulkReferences(),
  ids: bulkIds(),
};
/** REST names the orders by reference and the company by code; the panel names orders by id, the company optionally. */
export const pushBodySchema = (by: 'references' | 'ids') =>
  Joi.object({
    [by]: bulkKeys[by],
    shipping_company: Joi.string().trim().min(1).max(50)[by === 'references' ? 'required' : 'optional'](),
  });
export interface PushInput {
  references?: string[];
  ids?: number[];
  shipping_company?: string;
}

export const carrierCallbackSchema = Joi.object({
  orders: bulkOf(
    Joi.object({
      reference: Joi.string().trim().max(12),
      tracking_number: Joi.string().trim().max(100),
      status: oneOf(['shipped', 'delivered', 'returned']).required(),
    }).or('reference', 'tracking_number'),
  ),
});
export interface CarrierUpdate {
  reference?: string;
  tracking_number?: string;
  status: 'shipped' | 'delivered' | 'returned';
}
