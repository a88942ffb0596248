import Joi from 'joi';
import { pageKeys } from '../pagination.js';
import { isoDate } from '../validation.js';

const ID_MAX = 2_147_483_647;
const id = () => Joi.number().integer().positive().max(ID_MAX);
/** The most units one movement may move, either way (a count beyond it is a typo, not a warehouse). */
export const QUANTITY_MAX = 1_000_000;
export const REASON_MAX = 500;
export const MOVEMENTS_MAX = 1000;

export const MOVEMENT_KINDS = ['receipt', 'adjustment', 'reservation', 'release', 'shipment', 'return'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];
/** The kinds people record (REST, panel, a stock count); the others follow the orders. */
export const MANUAL_KINDS = ['receipt', 'adjustment'] as const;
/** The kinds whose quantity moves goods (on_hand); the others only reserve. */
export const ON_HAND_KINDS: readonly MovementKind[] = ['receipt', 'adjustment', 'shipment', 'return'];

const sku = () => Joi.string().trim().min(1).max(100);
const code = () =>
  Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z0-9][A-Z0-9_-]{0,29}$/)
    .messages({ 'string.pattern.base': '{{#label}} must be 1 to 30 letters, digits, - or _.' });

export const stockQuerySchema = Joi.object({
  ...pageKeys,
  account_id: id(),
  sku: sku().allow(''),
  warehouse: code().allow(''),
  low: Joi.boolean(),
});
export interface StockQuery {
  page: number;
  per_page: number;
  account_id?: number;
  sku?: string;
  warehouse?: string;
  low?: boolean;
}

export const movementsBodySchema = Joi.object({
  account_id: id(),
  movements: Joi.array()
    .min(1)
    .max(MOVEMENTS_MAX)
    .required()
    .items(
      Joi.object({
        sku: sku().required(),
        warehouse: code(),
        kind: Joi.string()
          .valid(...MANUAL_KINDS)
          .required(),
        quantity: Joi.number()
          .integer()
          .min(-QUANTITY_MAX)
          .max(QUANTITY_MAX)
          .required()
          .when('kind', { is: 'receipt', then: Joi.number().min(1) })
          .invalid(0),
        reason: Joi.string().trim().max(REASON_MAX).allow('', null),
      }),
    ),
});
export interface MovementInput {
  sku: string;
  warehouse?: string;
  kind: 'receipt' | 'adjustment';
  quantity: number;
  reason?: string | null;
}

export const movementsQuerySchema = Joi.object({
  ...pageKeys,
  account_id: id(),
  sku: sku().allow(''),
  warehouse: code().allow(''),
  kind: Joi.string().valid(...MOVEMENT_KINDS),
  order_reference: Joi.string().trim().max(40).allow(''),
  since: isoDate(),
});
export interface MovementsQuery {
  page: number;
  per_page: number;
  account_id?: number;
  sku?: string;
  warehouse?: string;
  kind?: MovementKind;
  order_reference?: string;
  since?: Date;
}

export const warehouseBodySchema = Joi.object({
  account_id: id(),
  code: code().required(),
  name: Joi.string().trim().min(1).max(100).required(),
});

export const warehousesQuerySchema = Joi.object({ account_id: id() });

export const productsQuerySchema = Joi.object({ ...pageKeys, account_id: id(), sku: sku().allow('') });

export const thresholdBodySchema = Joi.object({
  account_id: id(),
  low_stock_threshold: Joi.number().integer().min(0).max(QUANTITY_MAX).required(),
});
