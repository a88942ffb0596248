import Joi from 'joi';
import { pageKeys } from '../pagination.js';

const ID_MAX = 2_147_483_647;
const id = () => Joi.number().integer().positive().max(ID_MAX);

/** The reason's column width (migrations/20261208000000-blocked-phones.ts). */
export const REASON_MAX = 500;

/**
 * A phone to block, as typed (a lead's phone rules: 7 to 100 characters), and why; an admin names the account (anybody
 * else's account comes from the actor).
 */
export const blockSchema = Joi.object({
  account_id: id(),
  phone: Joi.string().trim().min(7).max(100).required(),
  reason: Joi.string().trim().min(1).max(REASON_MAX).required(),
});
export interface BlockInput {
  account_id?: number;
  phone: string;
  reason: string;
}

/** A page of the list; `phone` finds entries whose E.164 form contains its digits (the lead list's phone search). */
export const blocklistQuerySchema = Joi.object({
  ...pageKeys,
  account_id: id(),
  phone: Joi.string().trim().max(100).allow(''),
});
export interface BlocklistQuery {
  page: number;
  per_page: number;
  account_id?: number;
  phone?: string;
}

/** An entry as every answer shows it. */
export interface BlockedPhoneView {
  id: number;
  account_id: number;
  phone: string;
  phone_normalized: string;
  reason: string;
  created_by: string;
  created_at: string;
}
