import Joi from 'joi';
import { ROLES, type Role } from '../actor.js';

export const accountCreateSchema = Joi.object({ name: Joi.string().trim().min(2).max(100).required() });
export interface AccountCreateInput {
  name: string;
}

export const userCreateSchema = Joi.object({
  account_id: Joi.number().integer().positive().required(),
  role: Joi.string()
    .valid(...ROLES)
    .required(),
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).required(),
  password: Joi.string().min(8).max(200).required(),
  name: Joi.string().trim().min(2).max(100).required(),
});
export interface UserCreateInput {
  account_id: number;
  role: Role;
  email: string;
  password: string;
  name: string;
}

export const userUpdateSchema = Joi.object({
  role: Joi.string().valid(...ROLES),
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254),
  password: Joi.string().min(8).max(200),
  name: Joi.string().trim().min(2).max(100),
  active: Joi.boolean(),
});
export type UserUpdateInput = Partial<Omit<UserCreateInput, 'account_id'>> & { active?: boolean };
