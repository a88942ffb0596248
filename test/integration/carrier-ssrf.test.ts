import http from 'node:http';
import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import { CarrierAddressError, isPublicAddress, postToCarrier } from '../../src/shipping/carrier-client.js';
import { createShippingService } from '../../src/shipping/shipping.service.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { serveLocal } from '../helpers.js';

/** A local HTTP server that records what reaches it and answers with `answer`. */
async function listen(answer: (res: http.ServerResponse) => void) {
  const hits: string[] = [];
  const local = await serveLocal((req, res) => {
    hits.push(req.url ?? '');
    answer(res);
  });
  return { hits, port: local.port, close: local.close };
}

describe('carrier endpoints (SSRF)', () => {
  it('tells public addresses from loopback, private, link-local, CGNAT, multicast, IPv4-mapped and IPv4-carrying ones', () => {
    for (const a of [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::7f00:1',
      '::127.0.0.1',
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:db8::1',
      '100::1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).to.equal(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808'])
      expect(isPublicAddress(a), a).to.equal(true);
  });

  it('When private addresses are not allowed, Then a seller cannot point a carrier at loopback, private or link-local hosts, on create or on edit', async () => {
    const ctx = getCtx();
    const shipping = createShippingService({ ...ctx, config: { ...ctx.config, shippingAllowPrivateUrls: false } });
    const acc = await makeAccount(ctx);
    const base = { code: 'ssrf', name: 'SSRF', hmac_secret: 'secret-0123456789abcdef' };
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/',
      // RFC 6761 names, refused by name whatever the resolver says (glibc here does not resolve them)
      'http://foo.localhost/',
      'http://a.b.LOCALHOST./',
      'http://10.1.2.3/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0/',
      'ftp://93.184.216.34/',
      'http://user:pass@93.184.216.34/',
    ]) {
      const err = await shipping.createCompany(acc.seller.actor, { ...base, endpoint_url: url }).then(
        () => null,
        (e) => e,
      );
      expect(err?.errors, url).to.have.property('endpoint_url');
    }
    const created = await shipping.createCompany(acc.seller.actor, {
      ...base,
      endpoint_url: 'https://93.184.216.34/orders',
    });
    const edit = await shipping
      .updateCompany(acc.seller.actor, created.id, { endpoint_url: 'http://127.0.0.1:6379/' })
      .then(
        () => null,
        (e) => e,
      );
    expect(edit?.errors).to.have.property('endpoint_url');
    expect((await ctx.models.ShippingCompany.findByPk(created.id))!.endpoint_url).to.equal(
      'https://93.184.216.34/orders',
    );
  });

  it('refuses to connect to a private address at push time, by name or written as an address, so a URL stored earlier or a later DNS change cannot reach inside', async () => {
    const inside = await listen((res) => res.end('{"secret":"local"}'));
    try {
      // a name that resolves inside, and the same address written as IPv4, IPv4-mapped IPv6, and a decimal number
      for (const host of ['localhost', '127.0.0.1', '[::ffff:127.0.0.1]', '2130706433']) {
        const err = await postToCarrier(`http://${host}:${inside.port}/`, {}, '{}', 2000, false).then(
          () => null,
          (e) => e,
        );
        expect(err, host).to.be.instanceOf(CarrierAddressError);
      }
      expect(inside.hits).to.deep.equal([]);
    } finally {
      await inside.close();
    }
  });

  it('does not follow redirects, and keeps only the status and a reason of ours in last_push_error, never the answer body', async () => {
    const ctx = getCtx();
    const target = await listen((res) => res.end('{"tracking_number":"FROM-REDIRECT"}'));
    const redirecting = await listen((res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end(),
    );
    const leaking = await listen((res) => res.writeHead(500).end('internal token: LOCAL-SECRET-VALUE'));
    try {
      const acc = await makeAccount(ctx);
      for (const [code, port] of [
        ['redir', redirecting.port],
        ['leak', leaking.port],
      ] as const) {
        await ctx.services.shipping.createCompany(systemActor(), {
          account_id: acc.id,
          code,
          name: code,
          endpoint_url: `http://127.0.0.1:${port}/`,
          hmac_secret: 'secret-0123456789abcdef',
        });
      }
      const errors: Record<string, string | null> = {};
      for (const code of ['redir', 'leak']) {
        const { references } = await ctx.services.orders.createMany(acc.seller.actor, {
          orders: [
            {
              phone: '+212600111222',
              full_name: 'Some Buyer',
              products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
            },
          ],
        });
        await ctx.services.orders.push(acc.seller.actor, { references, shipping_company: code });
        const order = (await ctx.models.Order.findOne({ where: { reference: references[0] } }))!;
        await ctx.services.orders.pushOne(order.id, 'test', null).catch(() => {});
        errors[code] = (await ctx.models.Order.findByPk(order.id))!.last_push_error;
      }
      expect(errors).to.deep.equal({ redir: 'carrier answered HTTP 302', leak: 'carrier answered HTTP 500' });
      expect(target.hits).to.deep.equal([]);
    } finally {
      await Promise.all([target.close(), redirecting.close(), leaking.close()]);
    }
  });
});
