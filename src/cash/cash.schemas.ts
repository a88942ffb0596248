import Joi from 'joi';
import { pageKeys } from '../pagination.js';
import { isCalendarDate } from '../validation.js';

import { money } from '../money.js';

const ID_MAX = 2_147_483_647;
const id = () => Joi.number().integer().positive().max(ID_MAX);
export const LINES_MAX = 5000;

const text = (max: number) => Joi.string().trim().min(1).max(max);

/** A calendar day (YYYY-MM-DD), kept as the text it was. */
const day = () =>
  Joi.string()
    .pattern(/^\d{4}-\d{2}-\d{2}$/)
    .custom((v: string, h) => (isCalendarDate(v) ? v : h.error('date.range')))
    .messages({ 'string.pattern.base': '{{#label}} must be a day as YYYY-MM-DD.' });

export const remittanceBodySchema = Joi.object({
  account_id: id(),
  shipping_company: Joi.string().trim().lowercase().min(1).max(50).required(),
  statement_number: text(100).required(),
  paid_at: day().required(),
  lines: Joi.array()
    .min(1)
    .max(LINES_MAX)
    .required()
    .items(
      Joi.object({
        reference: text(40),
        tracking_number: text(100),
        amount: money().required(),
        fees: money(),
      })
        .or('reference', 'tracking_number')
        .messages({ 'object.missing': '{{#label}} must name a reference or a tracking_number.' }),
    ),
});
export interface RemittanceLineInput {
  reference?: string;
  tracking_number?: string;
  amount: number;
  fees?: number;
}
export interface RemittanceInput {
  account_id?: number;
  shipping_company: string;
  statement_number: string;
  paid_at: string;
  lines: RemittanceLineInput[];
}

export const remittancesQuerySchema = Joi.object({ ...pageKeys, account_id: id() });
export const outstandingQuerySchema = Joi.object({ account_id: id() });

export const OUTCOMES = ['matched', 'short', 'over', 'unknown_order', 'not_delivered', 'already_remitted'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const PAYMENT_STATUSES = ['none', 'to_collect', 'remitted', 'disputed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
