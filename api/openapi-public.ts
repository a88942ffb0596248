import { carrierCallbackSchema } from '../src/orders/order.schemas.js';
import { CALLBACK_WINDOW_S } from '../src/shipping/shipping.service.js';
import { budgetHeaders, messageAnswer, type DocLimits } from './openapi-common.js';
import { MORE_EXAMPLES } from './openapi-examples-more.js';
import { withMessage } from './openapi-schemas.js';
import type { Schema } from './openapi-schemas.js';

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const example = MORE_EXAMPLES['post /shipping/{code}/callback'];

/**
 * The operations without a bearer token: the carrier's signed status callback and this document. `toJson` turns the
 * callback's Joi schema (the one the service validates with) into JSON Schema.
 */
export function publicPaths(limits: DocLimits, toJson: (s: typeof carrierCallbackSchema) => Schema) {
  return {
    '/shipping/{code}/callback': { post: callbackOperation(limits, toJson(carrierCallbackSchema)) },
    '/openapi.json': {
      get: {
        operationId: 'getOpenapiJson',
        tags: ['Reference'],
        summary: 'This document (OpenAPI 3.1)',
        description: 'No token needed. The page at `/api/docs` renders it.',
        security: [],
        responses: {
          200: {
            description: 'The OpenAPI document',
            content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
          },
        },
      },
    },
  };
}

const signatureHelp = (
  limits: DocLimits,
) => `Signed, not a bearer token: \`X-Signature: sha256=<hex>\` is the HMAC-SHA256, keyed with the
company's secret, of \`<X-Timestamp>.<raw body>\`; \`X-Timestamp\` is Unix seconds within ${CALLBACK_WINDOW_S} s of the
server's clock. \`company\` is the shipping company's id and \`code\` its code, both given to the carrier when the
company is set up. Each update names an order of that company by \`reference\` or \`tracking_number\`; orders move to
shipped, delivered or returned under the transition rules, and the history says the company's name. A callback is
applied once: the same signature again is a 409 and changes nothing. Body at most 256 KB;
${limits.callback} callbacks per minute per client IP.

**Example** (Node): \`'sha256=' + crypto.createHmac('sha256', secret).update(\`\${ts}.\${raw}\`).digest('hex')\``;

function callbackOperation(limits: DocLimits, body: Schema) {
  const header = (name: string, description: string, schema: Schema) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
    example: example.headers![name],
  });
  return {
    operationId: 'postShippingCodeCallback',
    tags: ['Carrier callback'],
    summary: 'A carrier reports status changes of its orders (signed with the company secret)',
    description: signatureHelp(limits),
    security: [],
    parameters: [
      { name: 'code', in: 'path', required: true, schema: { type: 'string' }, example: 'fastship' },
      {
        name: 'company',
        in: 'query',
        required: true,
        description: 'The shipping company id',
        schema: { type: 'integer', minimum: 1 },
        example: 4,
      },
      header('X-Timestamp', 'Unix seconds when the carrier signed', { type: 'string', pattern: '^[0-9]{1,12}$' }),
      header('X-Signature', '`sha256=` and the hex HMAC-SHA256 of `<X-Timestamp>.<raw body>`', {
        type: 'string',
        pattern: '^sha256=[0-9a-f]{64}$',
      }),
    ],
    requestBody: { required: true, content: { 'application/json': { schema: body, example: example.body } } },
    responses: callbackResponses(limits),
  };
}

/** The callback's answers: its own 401, 409, 413 and 429, and the common ones. */
function callbackResponses(limits: DocLimits) {
  return {
    200: {
      description: 'Applied',
      headers: budgetHeaders,
      content: {
        'application/json': {
          schema: withMessage({ updated: { type: 'integer', minimum: 0 } }),
          example: example.response,
        },
      },
    },
    400: ref('BadRequest'),
    401: messageAnswer(
      'Unknown company or code, inactive company, stale timestamp or wrong signature',
      'Invalid signature.',
    ),
    409: messageAnswer(
      'The same signature was applied before (a replay): nothing changed',
      'This callback was already received (same signature).',
    ),
    413: messageAnswer('The body is over 256 KB', 'The request body is too large.'),
    422: ref('ValidationFailed'),
    429: messageAnswer(
      `Over ${limits.callback} callbacks per minute from this address (Retry-After)`,
      'Too Many Attempts.',
      true,
    ),
    500: ref('ServerError'),
    503: ref('Unavailable'),
  };
}
