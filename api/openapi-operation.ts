import type Joi from 'joi';
import type { Schema } from './openapi-schemas.js';

/**
 * One REST operation as the OpenAPI document shows it; request schemas are the Joi schemas the services validate with,
 * answer schemas are closed (api/openapi-schemas.ts), examples are in api/openapi-examples*.ts.
 */
export interface Refusal {
  description: string;
  message: string;
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  /** Beside the summary: rules worth a paragraph. */
  description?: string;
  scope: string;
  body?: Joi.Schema;
  query?: Joi.ObjectSchema;
  params?: string[];
  success: { status: number; description: string; schema: Schema };
  /**
   * Refusals of this operation beside those of every operation (400, 401, 403, 413, 422, 429, 500, 503), by status:
   * 404 (a description) or a `{message}` answer (its description and the message the API sends).
   */
  errors?: { 404?: string } & Record<number, string | Refusal>;
  /** Takes an optional `Idempotency-Key` header (docs/api.md "Idempotent requests"). */
  idempotent?: boolean;
}
