import { lineView } from '../record-views.js';

/** What a carrier is sent of an order (the orders domain passes its order and lines; shipping knows no more). */
export interface Parcel {
  reference: string;
  full_name: string;
  phone: string;
  city: string | null;
  area: string | null;
  address: string | null;
  total: number | string;
  data: unknown;
}
export type ParcelLine = Parameters<typeof lineView>[0];
import { CarrierAddressError, postToCarrier } from './carrier-client.js';
import type { ShippingCompany } from './shipping-company.model.js';
import { signBody } from './shipping.service.js';
import { maskSecretEchoes } from './secret-mask.js';

/** What a carrier answered for one order: its tracking number, or why the push failed (safe to show the tenant). */
export type CarrierResult = { tracking: string } | { failure: string };

function payloadOf(order: Parcel, products: ParcelLine[]): string {
  return JSON.stringify({
    reference: order.reference,
    full_name: order.full_name,
    phone: order.phone,
    city: order.city,
    area: order.area,
    address: order.address,
    total: Number(order.total),
    cash_on_delivery: Number(order.total),
    data: order.data,
    products: products.map(lineView),
  });
}

/**
 * Text kept from a carrier's answer (a tracking number, an error) with the company's API key and HMAC secret
 * replaced, however echoed (src/shipping/secret-mask.ts): a carrier that echoes them must not have them stored and
 * shown to everyone who reads the order.
 */
export function maskSecrets(text: string, company: ShippingCompany | null): string {
  return maskSecretEchoes(text, [company?.api_key, company?.hmac_secret]);
}

/** The failure as the tenant reads it in last_push_error: no carrier body, no stack, the company's secrets masked. */
function failureText(err: unknown, company: ShippingCompany | null): string {
  const e = err as NodeJS.ErrnoException;
  const failure =
    e.name === 'TimeoutError'
      ? `carrier did not answer within ${company?.timeout_ms} ms`
      : e instanceof CarrierAddressError ||
          e.message.startsWith('carrier answer') ||
          e.message.startsWith('shipping company')
        ? e.message
        : e.code
          ? `carrier could not be reached (${e.code})`
          : e.message;
  return maskSecrets(failure, company);
}

/** The tracking number in a carrier's 2xx answer, secrets masked, or a thrown "carrier answer …" error. */
function trackingOf(answer: { status: number; body: string }, company: ShippingCompany): string {
  if (answer.status < 200 || answer.status > 299) throw new Error(`carrier answered HTTP ${answer.status}`);
  const parsed = (() => {
    try {
      return JSON.parse(answer.body) as { tracking_number?: unknown };
    } catch {
      return null;
    }
  })();
  if (typeof parsed?.tracking_number !== 'string' || !parsed.tracking_number)
    throw new Error('carrier answer has no tracking_number');
  // masked before it is cut, so no part of a secret survives at the cut
  return maskSecrets(parsed.tracking_number, company).slice(0, 100);
}

/**
 * Sends one order to its shipping company: a signed JSON POST with the order reference as idempotency key (so a
 * resend after a crash is recognised by the carrier). The answer's body is the carrier's (or whatever the URL points
 * at): it is read for the tracking number only, and never kept.
 */
export async function sendOrder(
  company: ShippingCompany | null,
  order: Parcel,
  products: ParcelLine[],
  allowPrivateUrls: boolean,
): Promise<CarrierResult> {
  const payload = payloadOf(order, products);
  try {
    if (!company || !company.active) throw new Error('shipping company missing or inactive');
    const headers = {
      'content-type': 'application/json',
      'x-signature': signBody(company.hmac_secret, payload),
      'x-idempotency-key': order.reference,
      ...(company.api_key ? { 'x-api-key': company.api_key } : {}),
    };
    const answer = await postToCarrier(company.endpoint_url, headers, payload, company.timeout_ms, allowPrivateUrls);
    return { tracking: trackingOf(answer, company) };
  } catch (err) {
    return { failure: failureText(err, company) };
  }
}
