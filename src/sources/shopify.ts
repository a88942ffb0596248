import type { StoreLine, StorePlatform } from './store-order.js';
import { amount, count, idText, joined, list, record, text, type Json } from './store-payload.js';

/** `gid://shopify/Order/820982911946154508`: the order id as text, exact where the JSON number is not (over 2^53). */
const ORDER_GID = /^gid:\/\/shopify\/Order\/(\d{1,30})$/;

const nameOf = (a: Json) => text(a.name) ?? joined(a.first_name, a.last_name);
/** The address the order ships to: the shipping address when it has a street or a city, else the billing one. */
const placeOf = (ship: Json, bill: Json) => (text(ship.address1) || text(ship.city) ? ship : bill);

function lineOf(value: unknown): StoreLine {
  const l = record(value);
  return {
    name: text(l.name) ?? text(l.title) ?? 'unnamed line',
    sku: text(l.sku),
    productId: idText(l.product_id),
    variantId: idText(l.variant_id),
    quantity: count(l.quantity),
    price: amount(l.price),
  };
}

function paymentOf(order: Json): string | null {
  const gateways = list(order.payment_gateway_names).map(text).filter(Boolean).join(', ') || text(order.gateway);
  const status = text(order.financial_status);
  return gateways && status ? `${gateways} (${status})` : gateways || null;
}

/**
 * Shopify's `orders/create` webhook (docs/lead-sources.md, "Shopify"): the REST Admin API's Order resource as JSON,
 * signed `X-Shopify-Hmac-Sha256` = base64 HMAC-SHA256 of the raw body with the shop's webhook secret.
 */
export const shopify: StorePlatform = {
  kind: 'shopify',
  label: 'Shopify',
  topic: 'orders/create',
  headers: {
    signature: 'x-shopify-hmac-sha256',
    topic: 'x-shopify-topic',
    delivery: 'x-shopify-webhook-id',
    shop: 'x-shopify-shop-domain',
  },
  isPing: () => false,
  readOrder(payload) {
    const order = record(payload);
    const gid = ORDER_GID.exec(text(order.admin_graphql_api_id) ?? '');
    const orderId = gid?.[1] ?? idText(order.id);
    if (!orderId || orderId.length > 100) return 'no order id';
    const ship = record(order.shipping_address);
    const bill = record(order.billing_address);
    const customer = record(order.customer);
    const place = placeOf(ship, bill);
    return {
      orderId,
      label: text(order.name),
      phones: [ship.phone, bill.phone, customer.phone, order.phone],
      names: [nameOf(ship), nameOf(bill), joined(customer.first_name, customer.last_name)],
      cities: [place.city],
      addresses: [place.address1],
      areas: [place.province, place.address2],
      lines: list(order.line_items).map(lineOf),
      payment: paymentOf(order),
      landingSite: text(order.landing_site),
    };
  },
};
