import dns from 'node:dns';
import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import { AddressNotPublicError, isPublicAddress, postToPublicUrl } from '../../src/outbound/public-http.js';
import { createShippingService } from '../../src/shipping/shipping.service.js';
import { createWebhookService } from '../../src/webhooks/webhook.service.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';

/**
 * The IANA special-purpose address registries as read on 2026-11-25 (iana-ipv4-special-registry,
 * iana-ipv6-special-registry), every entry, globally reachable ones included: none is a seller's carrier or receiver.
 * Plus the IPv4-translated range (RFC 6145) and the deprecated IPv4-compatible and site-local ones.
 */
const IANA = [
  ...['0.0.0.0/8', '0.0.0.0/32', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12'],
  ...['192.0.0.0/24', '192.0.0.0/29', '192.0.0.8/32', '192.0.0.9/32', '192.0.0.10/32', '192.0.0.170/32'],
  ...['192.0.0.171/32', '192.0.2.0/24', '192.31.196.0/24', '192.52.193.0/24', '192.88.99.0/24', '192.168.0.0/16'],
  ...['192.175.48.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4', '255.255.255.255/32'],
  ...['::1/128', '::/128', '::ffff:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '100:0:0:1::/64'],
  ...['2001::/23', '2001::/32', '2001:1::1/128', '2001:1::2/128', '2001:1::3/128', '2001:2::/48', '2001:3::/32'],
  ...[
    '2001:4:112::/48',
    '2001:10::/28',
    '2001:20::/28',
    '2001:30::/28',
    '2001:db8::/32',
    '2002::/16',
    '2620:4f:8000::/48',
  ],
  ...['3fff::/20', '5f00::/16', 'fc00::/7', 'fe80::/10', 'ff00::/8'],
  ...['::ffff:0:0:0/96', '::/96', 'fec0::/10'],
];

/** The second and the second-to-last address of a range (the address itself for a single one). */
function samples(cidr: string): string[] {
  const [net, bits] = ipaddr.parseCIDR(cidr);
  const bytes = net.toByteArray();
  const last = bytes.map((b, i) => {
    const hostBits = Math.min(8, Math.max(0, (i + 1) * 8 - bits));
    return b | ((1 << hostBits) - 1);
  });
  if (last.every((b, i) => b === bytes[i])) return [net.toString()];
  const step = (arr: number[], d: 1 | -1) => {
    const out = [...arr];
    for (let i = out.length - 1; i >= 0; i--) {
      out[i] += d;
      if (out[i] >= 0 && out[i] <= 255) break;
      out[i] = d === 1 ? 0 : 255;
    }
    return ipaddr.fromByteArray(out).toString();
  };
  return [step(bytes, 1), step(last, -1)];
}

const hostOf = (a: string) => (a.includes(':') ? `[${a}]` : a);

/** The package's own lists of special ranges (what `range()` names), as CIDR strings. */
function packageRanges(): string[] {
  type Entry = [ipaddr.IPv4 | ipaddr.IPv6, number];
  const lists = [ipaddr.IPv4.prototype, ipaddr.IPv6.prototype].map(
    (p) => (p as unknown as { SpecialRanges: Record<string, Entry | Entry[]> }).SpecialRanges,
  );
  return lists.flatMap((list) =>
    Object.values(list).flatMap((e) => ((Array.isArray(e[0]) ? e : [e]) as Entry[]).map(([a, b]) => `${a}/${b}`)),
  );
}

const ALL = [...new Set([...packageRanges(), ...IANA])].flatMap((cidr) =>
  samples(cidr).map((address) => ({ cidr, address })),
);

describe('outbound addresses: every special-purpose range of the IANA registries (carriers and webhooks)', function () {
  this.timeout(120_000);

  it('the classification knows at least every range of the registries listed here', () => {
    // A sample of each range in the test's own IANA list is judged by the package (plus its cited additions)
    const known = IANA.flatMap(samples).filter((a) => isPublicAddress(a));
    expect(known).to.deep.equal([]);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808'])
      expect(isPublicAddress(a), a).to.equal(true);
  });

  it('When a seller saves a carrier or a webhook at an address of any special-purpose range, Then it is refused', async () => {
    const ctx = getCtx();
    const config = { ...ctx.config, shippingAllowPrivateUrls: false, webhookAllowPrivateUrls: false };
    const shipping = createShippingService({ ...ctx, config });
    const webhooks = createWebhookService({ ...ctx, config });
    const acc = await makeAccount(ctx);
    const accepted: string[] = [];
    for (const { cidr, address } of ALL) {
      const url = `http://${hostOf(address)}/in`;
      const carrier = await shipping
        .createCompany(acc.seller.actor, { code: 'c', name: 'Carrier', endpoint_url: url })
        .then(
          () => 'saved',
          (e: { errors?: Record<string, string[]> }) => Object.keys(e.errors ?? {}).join(),
        );
      const hook = await webhooks.create(acc.seller.actor, { url, events: ['lead.created'] }).then(
        () => 'saved',
        (e: { errors?: Record<string, string[]> }) => Object.keys(e.errors ?? {}).join(),
      );
      if (carrier !== 'endpoint_url') accepted.push(`carrier ${cidr} ${address}: ${carrier}`);
      if (hook !== 'url') accepted.push(`webhook ${cidr} ${address}: ${hook}`);
    }
    expect(accepted).to.deep.equal([]);
    expect(await ctx.models.ShippingCompany.count({ where: { account_id: acc.id } })).to.equal(0);
  });

  it('When a request would connect to any special-purpose address, by address or by a name, Then it never connects', async () => {
    const lookup = dns.lookup;
    let answer = '';
    // The name resolves to the sample under test, as a DNS answer changed after the save would.
    (dns as { lookup: unknown }).lookup = (_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
      cb(null, [{ address: answer, family: answer.includes(':') ? 6 : 4 }]);
    const connected: string[] = [];
    try {
      for (const { cidr, address } of ALL) {
        answer = address;
        for (const host of [hostOf(address), 'carrier.example.com']) {
          const err = await postToPublicUrl(`http://${host}:9/`, {}, '{}', 300, false).then(
            () => null,
            (e: Error) => e,
          );
          if (!(err instanceof AddressNotPublicError)) connected.push(`${cidr} ${host}=${address}: ${err?.message}`);
        }
      }
    } finally {
      (dns as { lookup: unknown }).lookup = lookup;
    }
    expect(connected).to.deep.equal([]);
  });
});
