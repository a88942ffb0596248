import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a seller's URL may reach, from a maintained classification of special-purpose address space (the
 * IANA IPv4 and IPv6 special-purpose registries, as ipaddr.js names them with `range()`), not a hand-kept list: a
 * range the registries add reaches us with a package update. Only what the package calls 'unicast' is public.
 */

type Cidr = [ipaddr.IPv6, number];

/**
 * Ranges the package (2.5.0) does not name, each checked against the registries on 2026-11-25. Extend only with a
 * range of a current registry or RFC, cited.
 */
const ADDED_V6: Record<string, Cidr> = {
  // RFC 9780, IANA IPv6 special-purpose registry: the dummy IPv6 prefix, not globally reachable.
  dummyPrefix: [ipaddr.IPv6.parse('100:0:0:1::'), 64],
  // RFC 4291 §2.5.5.1: IPv4-compatible addresses (deprecated), which a host may still route to the IPv4 inside.
  ipv4Compatible: [ipaddr.IPv6.parse('::'), 96],
};

/** IANA IPv6 address space registry (RFC 4291 §2.4): only 2000::/3 is allocated as global unicast. */
const GLOBAL_UNICAST_V6: Cidr = [ipaddr.IPv6.parse('2000::'), 3];

/**
 * The class of an IPv4 or IPv6 address: 'unicast' for a public one, else the registry's range name, or 'invalid'.
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address a.b.c.d to the socket, so it is judged by it; every
 * other IPv4-carrying form (IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo)
 * reaches its IPv4 through a translator or tunnel that we cannot vouch for, and is refused as the range it is.
 */
export function addressRange(address: string): string {
  const family = net.isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address).range();
  // A zone index (fe80::1%eth0) only exists on link-local scopes.
  if (family !== 6 || address.includes('%')) return 'invalid';
  // The URL parser writes IPv6 in hexadecimal groups: ipaddr.js would read the deprecated `::a.b.c.d` as mapped.
  let v6: ipaddr.IPv6;
  try {
    v6 = ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return 'invalid'; // a form the URL parser does not take is no address a URL can name
  }
  const range = v6.range();
  if (range === 'ipv4Mapped') return v6.toIPv4Address().range();
  if (range !== 'unicast') return range;
  const added = Object.entries(ADDED_V6).find(([, cidr]) => v6.match(cidr));
  if (added) return added[0];
  return v6.match(GLOBAL_UNICAST_V6) ? 'unicast' : 'unallocated';
}

/** An address a seller's URL may reach: public unicast, in no special-purpose range. */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}
