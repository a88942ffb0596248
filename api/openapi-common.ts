import { closed, str, type Schema } from './openapi-schemas.js';

/** The per-minute budgets the document states: the configured ones (src/config.ts), so the page shows the real ones. */
export interface DocLimits {
  /** RATE_LIMIT_PER_MINUTE: per token (per client IP for a request without a valid token). */
  perToken: number;
  /** RATE_LIMIT_ACCOUNT_PER_MINUTE: all the tokens of one account together. */
  perAccount: number;
  /** CALLBACK_RATE_PER_MINUTE: carrier callbacks, per client IP. */
  callback: number;
}
/** The defaults of src/config.ts. */
export const DEFAULT_LIMITS: DocLimits = { perToken: 60, perAccount: 180, callback: 120 };

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The body of every refusal but a 422. */
const messageOnly: Schema = { ...closed({ message: str }), description: 'A refusal: what went wrong, for a person' };
/** The 422 body: the first message (and how many more) and every message by dotted path into the request. */
const validationError: Schema = {
  ...closed({
    message: { type: 'string', description: 'The first error, then "(and N more errors)" when there are more' },
    errors: {
      type: 'object',
      description: 'Messages by dotted path into the body or query (`leads.0.phone`)',
      additionalProperties: { type: 'array', items: str, minItems: 1 },
    },
  }),
  description: 'A validation refusal (Laravel shape)',
};
const VALIDATION_EXAMPLE = {
  message: 'The leads.0.phone field is required. (and 2 more errors)',
  errors: {
    'leads.0.phone': ['The leads.0.phone field is required.'],
    'leads.1.products.0.sku': ["Sku 'serum-01' does not exist; did you mean 'SERUM-01'?"],
    'leads.2.products.0.sku': ["Sku 'OLD-01' belongs to an inactive product."],
  },
};
/** `components.schemas`: the two refusal bodies. */
export const schemaComponents = { Message: messageOnly, ValidationError: validationError };
const MESSAGE = { $ref: '#/components/schemas/Message' };

const header = (description: string, schema: Schema = { type: 'integer', minimum: 0 }) => ({ description, schema });
/** The budget headers of every answer that passed the rate limiter, and Retry-After. */
export function headerComponents(limits: DocLimits) {
  return {
    'X-RateLimit-Limit': header(`The token's budget per minute (${limits.perToken}; per client IP without a token)`),
    'X-RateLimit-Remaining': header('Requests left in the current minute'),
    'X-RateLimit-Reset': header('When the current window ends, in Unix seconds'),
    'Retry-After': header('Seconds to wait before trying again', { type: 'integer', minimum: 1 }),
  };
}
const budget = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
/** The headers of an answer that passed the rate limiter (every one but a 500 or 503, which may come before it). */
export const budgetHeaders = budget;

const json = (schema: Schema, example: unknown) => ({ 'application/json': { schema, example } });
const answer = (description: string, example: string, headers: Record<string, unknown> = budget) => ({
  description,
  headers,
  content: json(MESSAGE, { message: example }),
});

/** The refusals every operation may answer, as components; operations refer to them. */
export function responseComponents(limits: DocLimits) {
  return {
    BadRequest: answer('Malformed JSON body', 'Malformed JSON body.'),
    Unauthenticated: answer('Missing, malformed, unknown, expired or revoked token', 'Unauthenticated.'),
    Forbidden: answer(
      'The token lacks the scope of the operation (or its owner the role)',
      'This action is unauthorized.',
    ),
    NotFound: answer('Unknown reference or id (another account\u2019s is unknown too)', 'Not found.'),
    PayloadTooLarge: answer('The body is over 5 MB', 'The request body is too large.'),
    ValidationFailed: {
      description: 'Validation error',
      headers: budget,
      content: json({ $ref: '#/components/schemas/ValidationError' }, VALIDATION_EXAMPLE),
    },
    TooManyRequests: answer(
      `Over a budget: ${limits.perToken} requests per minute per token, or ${limits.perAccount} per minute for all ` +
        'the tokens of the account together. Wait Retry-After seconds.',
      'Too Many Attempts.',
      { ...budget, ...retryAfter },
    ),
    ServerError: {
      description: 'Unexpected failure: nothing internal in the body (details are in the log, under the request id)',
      content: json(MESSAGE, { message: 'Server Error' }),
    },
    Unavailable: {
      description: 'The database cannot be reached: retry after the given seconds',
      headers: retryAfter,
      content: json(MESSAGE, { message: 'Service temporarily unavailable. Please retry shortly.' }),
    },
  };
}

/** The refusals of every operation with a bearer token, by status. */
export const COMMON_REFUSALS = {
  400: ref('BadRequest'),
  401: ref('Unauthenticated'),
  403: ref('Forbidden'),
  413: ref('PayloadTooLarge'),
  422: ref('ValidationFailed'),
  429: ref('TooManyRequests'),
  500: ref('ServerError'),
  503: ref('Unavailable'),
};
export const NOT_FOUND = ref('NotFound');
/** A `{message}` answer with its own description (409s and the like), with the budget headers. */
export const messageAnswer = (description: string, example: string, retry = false) =>
  answer(description, example, retry ? { ...budget, ...retryAfter } : budget);
