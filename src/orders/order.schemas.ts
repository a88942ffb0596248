import Joi from 'joi';
import { MAX_BULK } from '../leads/lead.schemas.js';
import { pageKeys } from '../pagination.js';
import { ORDER_STATUSES } from './order.model.js';

export const orderStatus = Joi.string().valid(...ORDER_STATUSES);

export const orderUpdateBodySchema = Joi.object({
  orders: Joi.array()
    .min(1)
    .max(MAX_BULK)
    .required()
    .items(
      Joi.object({
        reference: Joi.string().trim().max(12).required(),
        status: orderStatus.required(),
        tracking_number: Joi.string().trim().min(1).max(100),
      }),
    ),
});
export interface OrderStatusChange {
  reference: string;
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
}

export const pushBodySchema = Joi.object({
  references: Joi.array().min(1).max(MAX_BULK).required().items(Joi.string().trim().max(12).required()),
  shipping_company: Joi.string().trim().min(1).max(50).required(),
});
export interface PushInput {
  references: string[];
  shipping_company: string;
}

export const carrierCallbackSchema = Joi.object({
  orders: Joi.array()
    .min(1)
    .max(MAX_BULK)
    .required()
    .items(
      Joi.object({
        reference: Joi.string().trim().max(12),
        tracking_number: Joi.string().trim().max(100),
        status: Joi.string().valid('shipped', 'delivered', 'returned').required(),
      }).or('reference', 'tracking_number'),
    ),
});
export interface CarrierUpdate {
  reference?: string;
  tracking_number?: string;
  status: 'shipped' | 'delivered' | 'returned';
}
