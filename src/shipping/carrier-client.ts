import { checkPublicUrl } from '../outbound/public-http.js';

/**
 * The carrier's side of the shared outbound door (src/outbound/public-http.ts): the same SSRF rules as webhooks,
 * under the names the shipping code and its tests use.
 */
export {
  AddressNotPublicError as CarrierAddressError,
  isPublicAddress,
  postToPublicUrl as postToCarrier,
  type PostAnswer as CarrierAnswer,
} from '../outbound/public-http.js';

/** A carrier's endpoint_url: no credentials, and a public host unless SHIPPING_ALLOW_PRIVATE_URLS. */
export function checkEndpointUrl(url: string, allowPrivate: boolean): Promise<string | null> {
  return checkPublicUrl(url, allowPrivate, 'endpoint_url');
}
