import Joi from 'joi';
import { ROLES, type Role } from '../actor.js';
import { PHONE_COUNTRIES } from '../leads/phone.js';
import { timeZoneNames } from '../time-zones.js';

/** ISO 3166 alpha-2, one libphonenumber knows ("ma" is read as MA). */
const phoneCountry = Joi.string()
  .trim()
  .uppercase()
  .valid(...PHONE_COUNTRIES)
  .messages({ 'any.only': 'The {{#label}} must be a country code such as MA or FR.' });

/** An IANA time zone name the runtime knows (Intl.supportedValuesOf('timeZone'), and UTC). */
const timeZone = Joi.string()
  .trim()
  .valid(...timeZoneNames())
  .messages({ 'any.only': 'The {{#label}} must be a time zone such as Africa/Casablanca or Europe/Paris.' });

export const accountCreateSchema = Joi.object({
  name: Joi.string().trim().min(2).max(100).required(),
  phone_country: phoneCountry,
  time_zone: timeZone,
});
export interface AccountCreateInput {
  name: string;
  /** Default: DEFAULT_COUNTRY. */
  phone_country?: string;
  /** Default: the phone country's zone (src/time-zones.ts). */
  time_zone?: string;
}

export const accountUpdateSchema = Joi.object({
  name: Joi.string().trim().min(2).max(100),
  phone_country: phoneCountry,
  time_zone: timeZone,
});
export type AccountUpdateInput = Partial<Required<AccountCreateInput>>;

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
