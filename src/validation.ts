import Joi from 'joi';
import { ValidationError, type FieldErrors } from './errors.js';

/** Joi messages in the Laravel style: "The leads.0.phone field must be at least 7 characters." */
const messages: Joi.LanguageMessages = {
  'any.required': 'The {{#label}} field is required.',
  'any.only': 'The selected {{#label}} is invalid.',
  'any.invalid': 'The selected {{#label}} is invalid.',
  'any.unknown': 'The {{#label}} field is not allowed.',
  'string.base': 'The {{#label}} field must be a string.',
  'string.empty': 'The {{#label}} field is required.',
  'string.min': 'The {{#label}} field must be at least {{#limit}} characters.',
  'string.max': 'The {{#label}} field must not be greater than {{#limit}} characters.',
  'string.email': 'The {{#label}} field must be a valid email address.',
  'string.pattern.base': 'The {{#label}} field format is invalid.',
  'string.pattern.name': 'The {{#label}} field format is invalid.',
  'number.base': 'The {{#label}} field must be a number.',
  'number.min': 'The {{#label}} field must be at least {{#limit}}.',
  'number.max': 'The {{#label}} field must not be greater than {{#limit}}.',
  'number.integer': 'The {{#label}} field must be an integer.',
  'number.unsafe': 'The {{#label}} field must be a number.',
  'array.base': 'The {{#label}} field must be an array.',
  'array.min': 'The {{#label}} field must have at least {{#limit}} items.',
  'array.max': 'The {{#label}} field must not have more than {{#limit}} items.',
  'array.includesRequiredUnknowns': 'The {{#label}} field is required.',
  'array.sparse': 'The {{#label}} field must not contain empty items.',
  'object.base': 'The {{#label}} field must be an object.',
  'object.unknown': 'The {{#label}} field is not allowed.',
  'boolean.base': 'The {{#label}} field must be true or false.',
  'date.base': 'The {{#label}} field must be a valid date.',
  'date.format': 'The {{#label}} field must match the format Y-m-d\\TH:i:sP.',
};

export const JOI_OPTIONS: Joi.ValidationOptions = {
  abortEarly: false, stripUnknown: false, allowUnknown: false, convert: true, errors: { wrap: { label: false } }, messages,
};

/** Validates against a Joi schema and throws ValidationError keyed by dotted paths; returns the converted value. */
export function validate<T>(schema: Joi.Schema, input: unknown, opts: Joi.ValidationOptions = {}): T {
  const { value, error } = schema.validate(input, { ...JOI_OPTIONS, ...opts });
  if (error) throw new ValidationError(toFieldErrors(error));
  return value as T;
}

export function toFieldErrors(error: Joi.ValidationError): FieldErrors {
  const out: FieldErrors = {};
  for (const d of error.details) {
    const key = d.path.join('.') || 'body';
    const label = d.context?.label ? String(d.context.label) : null;
    const msg = label ? d.message.split(label).join(key) : d.message;
    (out[key] ??= []).push(msg);
  }
  return out;
}

/** Adds errors found by service rules (sku, references) to a dotted-path map. */
export function addError(errors: FieldErrors, key: string, message: string): void {
  (errors[key] ??= []).push(message);
}
