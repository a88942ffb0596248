import { messageAnswer } from './openapi-common.js';
import { closed, str, type Schema } from './openapi-schemas.js';

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
const html = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: { 'text/html': { schema: { type: 'string' } } },
});
/** A refusal: JSON for a script, an HTML page with a link back to the form for a browser's form post. */
const refusal = (description: string, example: string, retry = false) => {
  const json = messageAnswer(description, example, retry);
  return { ...json, headers: retry ? retryAfter : {}, content: { ...json.content, ...html('').content } };
};

const fields: Schema = {
  type: 'object',
  required: ['phone', 'full_name'],
  properties: {
    phone: { type: 'string', minLength: 7, maxLength: 100 },
    full_name: { type: 'string', minLength: 3, maxLength: 100 },
    city: { type: 'string', minLength: 3, maxLength: 100 },
    area: { type: 'string', minLength: 3, maxLength: 100 },
    address: { type: 'string', minLength: 5, maxLength: 100 },
    sku: { type: 'string', description: "An active product of the source's account (else the default products)" },
    quantity: { type: 'string', pattern: '^[0-9]{1,3}$' },
    utm_source: str,
    utm_medium: str,
    utm_campaign: str,
    utm_term: str,
    utm_content: str,
    website: {
      type: 'string',
      maxLength: 0,
      description: 'The honeypot: must be empty (absent, empty or blank; JSON null and false count as empty)',
    },
  },
  additionalProperties: { type: 'string', maxLength: 100, description: "Kept in the lead's data (at most 20)" },
};
const example = { full_name: 'Amina Benali', phone: '0612345678', city: 'Casablanca', utm_source: 'facebook' };
const key = { name: 'public_key', in: 'path', required: true, schema: { type: 'string', maxLength: 40 } };

const description = `No token: the source's public key is in the address. A page of one of the source's allowed
origins (the \`Origin\` header, else the \`Referer\`'s origin) or a server (no Origin) may post; CORS answers only those
origins. A browser's form post (\`Accept: text/html\`, not XHR) is answered with a 303 to the source's thank-you
address, a refusal with an HTML page saying what was wrong; a script gets JSON. Body at most 64 KB, urlencoded or JSON.
Budgets per source: FORM_RATE_PER_IP submissions per minute from one address (default 10) and FORM_RATE_PER_SOURCE
from all (default 300). Every submission is written to the source's intake log. See docs/lead-sources.md.`;

const postOperation = {
  operationId: 'postIntakeForm',
  tags: ['Lead sources'],
  summary: 'A landing-page form submission (public, by the source key)',
  description,
  security: [],
  parameters: [key],
  requestBody: {
    required: true,
    content: {
      'application/x-www-form-urlencoded': { schema: fields, example },
      'application/json': { schema: fields, example },
    },
  },
  responses: {
    201: {
      description: 'The lead was created (a duplicate phone makes it a duplicate lead, still created)',
      content: {
        'application/json': {
          schema: closed({ message: str, reference: { type: 'string', pattern: '^LD[0-9A-Z]{10}$' } }),
          example: { message: 'Lead created.', reference: 'LD7K2M9Q4XBT' },
        },
      },
    },
    303: {
      description: "A browser's form post: the lead was created; go to the thank-you page",
      headers: { Location: { schema: { type: 'string' } } },
    },
    400: refusal('The body could not be read (malformed JSON, over 64 KB, over 100 fields)', 'The form is too large.'),
    403: refusal(
      "The page's origin is not one of the source's allowed origins",
      'This page may not send to this form.',
    ),
    404: refusal('Unknown public key, or the source is inactive', 'Not found.'),
    422: {
      description: 'A field breaks its rule, or the honeypot is filled: errors by form field name',
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ValidationError' },
          example: {
            message: 'The phone field is required.',
            errors: { phone: ['The phone field is required.'] },
          },
        },
        ...html('').content,
      },
    },
    429: refusal(
      'Over a budget of the source (per address or in all): wait Retry-After seconds',
      'Too Many Attempts.',
      true,
    ),
    500: ref('ServerError'),
    503: ref('Unavailable'),
  },
};

/** The public form endpoint of lead sources (api/routes/form-intake.routes.ts). */
export function formPaths() {
  return {
    '/intake/forms/{public_key}': {
      post: postOperation,
      options: {
        operationId: 'optionsIntakeForm',
        tags: ['Lead sources'],
        summary: 'CORS preflight: allowed only for the source’s allowed origins',
        security: [],
        parameters: [key],
        responses: {
          204: { description: 'Access-Control-Allow-* headers for an allowed origin, none for another' },
          404: refusal('Unknown public key, or the source is inactive', 'Not found.'),
        },
      },
    },
    '/intake/thank-you': {
      get: {
        operationId: 'getIntakeThankYou',
        tags: ['Lead sources'],
        summary: 'The thank-you page of a source without its own thank-you address',
        security: [],
        responses: { 200: html('A small thank-you page') },
      },
    },
  };
}
