import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress } from './address-space.js';

/**
 * The one door from a worker to a URL a seller chose (a carrier's endpoint, a webhook receiver). It must not reach the
 * machine's own services or the private network (SSRF): every address the host resolves to is checked as the
 * connection is made (no gap for a DNS answer that changes between a check and the connection), redirects are not
 * followed, and at most 64 KB of the answer is read. An operator whose receivers live on a private network allows
 * private addresses per feature (SHIPPING_ALLOW_PRIVATE_URLS, WEBHOOK_ALLOW_PRIVATE_URLS).
 */

// Which addresses are public is decided in one place, from the IANA special-purpose registries (address-space.ts).
export { isPublicAddress } from './address-space.js';

/** The URL's host is (or resolves to) an address that is not public. */
export class AddressNotPublicError extends Error {}

/** dns.lookup that refuses a host whose addresses include one that is not public. */
const publicLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const refused = list.find((a) => !isPublicAddress(a.address));
    if (refused || !list.length) {
      // which address is not told: whoever reads the error must not learn the names of the private network
      const why = refused ? 'is not a public address' : 'resolves to no address';
      return callback(new AddressNotPublicError(`the endpoint's host ${why}`), '', 0);
    }
    if ((options as dns.LookupOptions).all)
      return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

/**
 * Checks a URL a user gives in `field`, after the schema has made sure it is an http(s) URL: no credentials in it,
 * and, unless private addresses are allowed, a host that is public. Answers the problem, or null.
 */
export async function checkPublicUrl(url: string, allowPrivate: boolean, field: string): Promise<string | null> {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) return `The ${field} field must not contain credentials.`;
  if (allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  // RFC 6761: `localhost` and every name under it are loopback, whatever this host's resolver answers for them today
  if (/(^|\.)localhost\.?$/i.test(host)) return `The ${field} field must point to a public address.`;
  const addresses = net.isIP(host)
    ? [host]
    : await dns.promises.lookup(host, { all: true }).then(
        (l) => l.map((a) => a.address),
        () => null,
      );
  // A host that does not resolve now may later; the request checks again as it connects.
  if (addresses && addresses.some((a) => !isPublicAddress(a)))
    return `The ${field} field must point to a public address.`;
  return null;
}

export interface PostAnswer {
  status: number;
  body: string;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs `body` to `url`; resolves with the status and (at most 64 KB of) the answer, never following a redirect.
 */
export function postToPublicUrl(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  allowPrivate: boolean,
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    // Node calls no lookup for a host that is already an address (127.0.0.1, [::ffff:7f00:1], 2130706433 once the URL
    // is parsed): such a host is judged here, so a URL stored before the check (or while private ones were allowed)
    // cannot reach a private address either.
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && net.isIP(literal) && !isPublicAddress(literal)) {
      reject(new AddressNotPublicError(`the endpoint's address ${literal} is not a public address`));
      return;
    }
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        ...(allowPrivate ? {} : { lookup: publicLookup }),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(c);
          else res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => {});
      },
    );
    const deadline = setTimeout(
      () => request.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })),
      timeoutMs,
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })));
    request.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
