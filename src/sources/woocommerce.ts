import type { StoreLine, StorePlatform } from './store-order.js';
import { amount, count, idText, joined, list, record, text, type Json } from './store-payload.js';

const nameOf = (a: Json) => joined(a.first_name, a.last_name);
/** The address the order ships to: the shipping address when it has a street or a city, else the billing one. */
const placeOf = (ship: Json, bill: Json) => (text(ship.address_1) || text(ship.city) ? ship : bill);

function lineOf(value: unknown): StoreLine {
  const l = record(value);
  return {
    name: text(l.name) ?? 'unnamed line',
    sku: text(l.sku),
    productId: idText(l.product_id),
    variantId: idText(l.variation_id),
    quantity: count(l.quantity),
    price: amount(l.price),
  };
}

/** The ping WooCommerce sends, unsigned, when a webhook is saved: `webhook_id=<id>` (WC_Webhook::deliver_ping). */
const PING = /^webhook_id=\d{1,20}$/;

/**
 * WooCommerce's `order.created` webhook (docs/lead-sources.md, "WooCommerce"): the REST API's order (v3) as JSON,
 * signed `X-WC-Webhook-Signature` = base64 HMAC-SHA256 of the raw body with the webhook's secret.
 */
export const woocommerce: StorePlatform = {
  kind: 'woocommerce',
  label: 'WooCommerce',
  topic: 'order.created',
  headers: {
    signature: 'x-wc-webhook-signature',
    topic: 'x-wc-webhook-topic',
    delivery: 'x-wc-webhook-delivery-id',
    shop: 'x-wc-webhook-source',
  },
  // the ping is the only body a shop sends without a signature; a signed body is never one
  isPing: (raw, signature) => signature === undefined && raw.length < 40 && PING.test(raw.toString('latin1').trim()),
  readOrder(payload) {
    const order = record(payload);
    const orderId = idText(order.id);
    if (!orderId || orderId.length > 100) return 'no order id';
    const billing = record(order.billing);
    const shipping = record(order.shipping);
    const place = placeOf(shipping, billing);
    return {
      orderId,
      label: text(order.number) && `#${text(order.number)}`,
      phones: [billing.phone, shipping.phone],
      names: [nameOf(shipping), nameOf(billing)],
      cities: [place.city],
      addresses: [place.address_1],
      areas: [place.state, place.address_2],
      lines: list(order.line_items).map(lineOf),
      payment: text(order.payment_method_title) ?? text(order.payment_method),
      landingSite: null,
    };
  },
};
