import { messageAnswer } from './openapi-common.js';
import { STORE_BODY_MAX_BYTES } from '../src/sources/store-intake.service.js';
import { closed, refs, str, type Schema } from './openapi-schemas.js';

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const message = (description: string, example: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Message' }, example: { message: example } } },
});

/** Over the budget of refused deliveries (http/rate-limit.ts, storeRateLimits). */
const tooMany = {
  ...messageAnswer(
    'Too many refused deliveries to this address (per client address, or in all) this minute: unread, not logged; ' +
      'wait Retry-After seconds (a shop retries by itself)',
    'Too Many Attempts.',
    true,
  ),
  headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
};

/** A signed delivery's answer: always 200, whatever became of the order (docs/lead-sources.md). */
const answer: Schema = closed(
  {
    message: str,
    outcome: { type: 'string', enum: ['created', 'duplicate', 'refused'] },
    reference: { ...refs.lead, description: 'The lead made of the order (created, or received before)' },
  },
  ['outcome', 'reference'],
);

const STORES = {
  shopify: {
    label: 'Shopify',
    topic: 'orders/create',
    signature: 'X-Shopify-Hmac-Sha256',
    topicHeader: 'X-Shopify-Topic',
    body: 'the Order resource of the REST Admin API (Shopify sends it; its id is the lead\u2019s external id)',
    example: {
      id: 820982911946154500,
      name: '#9999',
      shipping_address: { name: 'Steve Shipper', phone: '+212612345678', city: 'Casablanca', address1: '12 Rue Atlas' },
      line_items: [
        { name: 'IPod Nano - 8GB', sku: 'IPOD2008PINK', product_id: 632910392, quantity: 1, price: '199.00' },
      ],
    },
  },
  woocommerce: {
    label: 'WooCommerce',
    topic: 'order.created',
    signature: 'X-WC-Webhook-Signature',
    topicHeader: 'X-WC-Webhook-Topic',
    body: 'the order of the REST API v3 (WooCommerce sends it; its id is the lead\u2019s external id)',
    example: {
      id: 727,
      number: '727',
      billing: {
        first_name: 'John',
        last_name: 'Doe',
        phone: '+212612345678',
        city: 'Rabat',
        address_1: '9 Av. Hassan',
      },
      line_items: [{ name: 'Woo Single #1', sku: 'WOO-1', product_id: 93, quantity: 2, price: 3 }],
    },
  },
} as const;

function storeOperation(kind: keyof typeof STORES) {
  const s = STORES[kind];
  const ping =
    kind === 'woocommerce'
      ? ' The unsigned ping WooCommerce sends when the webhook is saved (`webhook_id=<id>`) is answered 200.'
      : '';
  return {
    operationId: `postIntake${s.label}PublicKey`,
    tags: ['Store webhooks'],
    summary: `A ${s.label} shop's \`${s.topic}\` webhook becomes a lead, once per order`,
    description: `Public, signed: \`${s.signature}\` is the base64 HMAC-SHA256 of the raw body with the source's
signing secret (compared in constant time); \`public_key\` names the lead source. The body is ${s.body}; line items
are mapped to the account's skus (by sku, then by the source's product mapping); a line that maps to nothing is kept in
the lead's data and flagged. A signed delivery is always answered 200 with what became of it (created, duplicate
for an order received before, refused and why, e.g. another topic than \`${s.topic}\`): the shop must not retry an
order that can never pass. Body at most ${STORE_BODY_MAX_BYTES / 1024 / 1024} MB. Setup and the field mapping:
docs/lead-sources.md.${ping}`,
    security: [],
    parameters: [
      { name: 'public_key', in: 'path', required: true, schema: { type: 'string', maxLength: 40 }, example: 'k7Qm2x' },
      {
        name: s.signature,
        in: 'header',
        required: kind === 'shopify',
        schema: str,
        example: 'XWmrwMey6OsLMeiZKwP4Fp=',
      },
      { name: s.topicHeader, in: 'header', required: kind === 'shopify', schema: str, example: s.topic },
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { type: 'object' }, example: s.example } },
    },
    responses: {
      200: {
        description: 'Received: what became of the delivery',
        content: {
          'application/json': {
            schema: answer,
            example: { message: 'Lead created.', outcome: 'created', reference: 'LD7K2M9QX4TB' },
          },
        },
      },
      401: message('Missing or wrong signature (logged as refused)', 'Invalid signature.'),
      404: message('No active source of this kind has this key (nothing logged)', 'Not found.'),
      413: message(
        `The body is over ${STORE_BODY_MAX_BYTES / 1024 / 1024} MB (logged as refused)`,
        'The request body is too large.',
      ),
      429: tooMany,
      500: ref('ServerError'),
      503: ref('Unavailable'),
    },
  };
}

/** The shops' order webhooks (api/routes/store-intake.routes.ts): public, signed with the source's secret. */
export function storeIntakePaths() {
  return {
    '/intake/shopify/{public_key}': { post: storeOperation('shopify') },
    '/intake/woocommerce/{public_key}': { post: storeOperation('woocommerce') },
  };
}
