import { expect } from 'chai';
import fc from 'fast-check';
import { statusFor } from '../../http/errors.js';
import { systemActor } from '../../src/actor.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { startTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';

/**
 * Property tests over every entry point's input: generated bodies and query strings with NUL bytes, control
 * characters, huge and odd numbers, dates outside any calendar, wrong types and unicode. No answer is a 5xx, and an
 * input that is refused changes nothing. The seed is fixed; FUZZ_RUNS multiplies the budget (FUZZ_RUNS=10 for a long run).
 */
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const SEED = 20261123;

const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 12 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u001b[31m',
    '\ud800',
    '💥'.repeat(60),
    'x'.repeat(5000),
    '-271821-04-20T00:00:00.000Z',
    '2026-02-31',
    '275760-09-13T00:00:00.000Z',
    '9999-99-99T99:99:99+99:99',
    '1e309',
    'NaN',
    '-0',
    '0x10',
    '99999999999999999999',
    'null',
    '[]',
    '{}',
    'OR0000000001',
    'LE0000000001',
    'confirmed',
    'call_later',
    "'; DROP TABLE leads; --",
    '%00',
    '../../etc/passwd',
  ),
);
const nastyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 0.1 + 0.2, 1e-9),
);
const nasty: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    nastyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(nastyString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** Either a well-formed value of the field or something nasty, so generated inputs get past the first checks too. */
const or = <T>(good: fc.Arbitrary<T>) => fc.oneof(good, good, nasty);

/**
 * Rows of the account for bulk writes to name: real references (so a bulk that changes item 0 and then refuses item 1
 * would show as a partial write) beside ones that exist nowhere.
 */
async function realReferences(acc: TestAccount): Promise<string[]> {
  const s = getCtx().services;
  const item = (i: number) => ({
    // a possible Moroccan mobile: 9 digits after +212
    phone: `+21260070${String(acc.id % 1000).padStart(3, '0')}${i}`,
    full_name: `Fuzz Row ${i}`,
    products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
  });
  const leads = (await s.leads.createMany(acc.seller.actor, { leads: [item(1), item(2), item(3)] })).references;
  const orders = (await s.orders.createMany(acc.seller.actor, { orders: [item(4), item(5)] })).references;
  return [...leads, ...orders];
}

function bodies(acc: TestAccount, real: string[] = []) {
  const sku = or(fc.constantFrom(...acc.skus.active, acc.skus.inactive));
  const product = fc.record(
    { sku, quantity: or(fc.integer({ min: 1, max: 999 })), price: or(fc.integer({ min: 1, max: 9999 })) },
    { requiredKeys: [] },
  );
  const lead = fc.record(
    {
      phone: or(fc.constantFrom('+212600000001', '0600000002')),
      full_name: or(fc.constantFrom('Karim Haddad', 'Amina B')),
      city: or(fc.constant('Fes')),
      area: or(fc.constant('Centre')),
      address: or(fc.constant('3 Rue Talaa')),
      data: or(fc.array(fc.record({ key: or(fc.constant('utm')), value: or(fc.constant('fb')) }), { maxLength: 2 })),
      products: or(fc.array(product, { minLength: 1, maxLength: 2 })),
      extra: nasty,
    },
    { requiredKeys: [] },
  );
  const status = or(fc.constantFrom('new', 'confirmed', 'wrong', 'call_later', 'canceled', 'shipped', 'delivered'));
  const reference = or(fc.constantFrom(...real, 'LD0000000001', 'OR0000000001'));
  const change = fc.record(
    { reference, status, action_date: or(fc.constant('2027-01-01T10:00:00+01:00')), note: nasty },
    { requiredKeys: [] },
  );
  const envelope = <T>(key: string, item: fc.Arbitrary<T>) =>
    fc.oneof(fc.record({ [key]: or(fc.array(item, { maxLength: 3 })) }), nasty);
  return { lead, envelope, change, reference, status };
}

/** Counts and the latest change of every table a write touches, for one account. */
async function fingerprint(accountId: number): Promise<string> {
  const [row] = await getCtx().db.sequelize.query(
    `
    SELECT (SELECT count(*) || ':' || coalesce(max(updated_at)::text, '') FROM leads WHERE account_id = :a) AS leads,
           (SELECT count(*) || ':' || coalesce(max(updated_at)::text, '') FROM orders WHERE account_id = :a) AS orders,
           (SELECT count(*) FROM lead_histories WHERE account_id = :a) AS lh, (SELECT count(*) FROM order_histories WHERE account_id = :a) AS oh,
           (SELECT count(*) FROM agenda_jobs) AS jobs`,
    { replacements: { a: accountId }, plain: false },
  );
  return JSON.stringify(row);
}

describe('fuzz: no input answers 5xx, and a refused input changes nothing', () => {
  it(`services behind REST, dashboard and panel: ${10_000 * SCALE} generated inputs`, async function () {
    this.timeout(360_000 * SCALE);
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.services.shipping.createCompany(systemActor(), {
      account_id: acc.id,
      code: 'fuzz',
      name: 'Fuzz',
      endpoint_url: 'http://127.0.0.1:9/f',
      hmac_secret: 'fuzz-secret-0123456789',
    });
    const { lead, envelope, change, reference } = bodies(acc, await realReferences(acc));
    const s = ctx.services;
    const actor = acc.seller.actor;
    const calls: [string, fc.Arbitrary<unknown>, (input: unknown) => Promise<unknown>][] = [
      ['leads.createMany', envelope('leads', lead), (b) => s.leads.createMany(actor, b)],
      ['leads.updateStatuses', envelope('leads', change), (b) => s.leads.updateStatuses(actor, b)],
      [
        'leads.deleteMany',
        fc.oneof(fc.record({ references: or(fc.array(reference, { maxLength: 3 })) }), nasty),
        (b) => s.leads.deleteMany(actor, b),
      ],
      [
        'leads.createOne',
        fc.oneof(
          fc.record(
            {
              name: or(fc.constant('+212600000009')),
              status: or(fc.constant('new')),
              full_name: nasty,
              city_id: nasty,
              action_date: nasty,
            },
            { requiredKeys: [] },
          ),
          nasty,
        ),
        (b) => s.leads.createOne(actor, b as never),
      ],
      ['orders.createMany', envelope('orders', lead), (b) => s.orders.createMany(actor, b)],
      ['orders.updateStatuses', envelope('orders', change), (b) => s.orders.updateStatuses(actor, b)],
      [
        'orders.deleteMany',
        fc.oneof(fc.record({ references: or(fc.array(reference, { maxLength: 3 })) }), nasty),
        (b) => s.orders.deleteMany(actor, b),
      ],
      [
        'orders.push',
        fc.oneof(
          fc.record({
            references: or(fc.array(reference, { maxLength: 3 })),
            shipping_company: or(fc.constant('fuzz')),
          }),
          nasty,
        ),
        (b) => s.orders.push(actor, b),
      ],
      [
        'orders.list',
        fc.dictionary(fc.constantFrom('page', 'per_page', 'status', 'search_by', 'keyWord', 'sort', 'x'), nasty, {
          maxKeys: 4,
        }),
        (q) => s.orders.list(actor, q),
      ],
    ];
    const per = Math.ceil((10_000 * SCALE) / calls.length);
    let refused = 0;
    for (const [name, arb, call] of calls) {
      await fc.assert(
        fc.asyncProperty(arb, async (input) => {
          const before = await fingerprint(acc.id);
          try {
            await call(input);
          } catch (err) {
            const status = statusFor(err);
            expect(status, `${name}(${JSON.stringify(input)?.slice(0, 300)}): ${(err as Error).message}`).to.be.within(
              400,
              499,
            );
            expect(
              await fingerprint(acc.id),
              `${name} refused ${JSON.stringify(input)?.slice(0, 300)} but changed the database`,
            ).to.equal(before);
            refused++;
          }
        }),
        { seed: SEED, numRuns: per },
      );
    }
    expect(refused).to.be.greaterThan(per);
  });

  describe('over HTTP', () => {
    let web: Awaited<ReturnType<typeof startTestServer>>;
    // A budget no generated run reaches: a 429 would end the test's reach, not the input's.
    before(async () => {
      const budgets = { rateLimitPerMinute: 1e6, rateLimitAccountPerMinute: 1e6, sessionRatePerMinute: 1e6 };
      web = await startTestServer({ ...getCtx(), config: { ...getCtx().config, ...budgets } });
    });
    after(async () => {
      await web.close();
    });

    const query = fc
      .dictionary(
        fc.constantFrom(
          'page',
          'per_page',
          'perPage',
          'status',
          'search_by',
          'keyWord',
          'search',
          'since',
          'created_from',
          'created_to',
          'city_id',
          'account_id',
          'sortBy',
          'direction',
          'filters.status',
          'filters.created_at',
          'filters.created_at~~from',
          'filters.created_at~~to',
          'filters.phone',
          'filters.account_id',
          'recordIds',
          'lead_reference',
          'order_reference',
          'x[y]',
        ),
        fc.oneof(nastyString, nastyNumber.map(String)),
        { maxKeys: 5 },
      )
      .map((q) => new URLSearchParams(q as Record<string, string>).toString());

    it(`REST and dashboard bodies (${500 * SCALE}) and REST, dashboard and panel list queries (${1500 * SCALE}) answer below 500`, async function () {
      this.timeout(360_000 * SCALE);
      const acc = await makeAccount(getCtx());
      const rest = restClient(web.url, await acc.token());
      const seller = await login(web.url, acc.seller.email, acc.seller.password);
      const targets: [string, (q: string) => Promise<{ status: number }>][] = [
        ['REST /leads', (q) => rest('GET', `/leads?${q}`)],
        ['REST /orders', (q) => rest('GET', `/orders?${q}`)],
        ['REST /lead-histories', (q) => rest('GET', `/lead-histories?${q}`)],
        ['REST /order-histories', (q) => rest('GET', `/order-histories?${q}`)],
        ['dashboard /leads', (q) => seller.json('GET', `/leads?${q}`)],
        ['dashboard /lead-histories', (q) => seller.json('GET', `/lead-histories?${q}`)],
        ['panel leads list', (q) => seller.json('GET', `/admin/api/resources/leads/actions/list?${q}`)],
        ['panel orders list', (q) => seller.json('GET', `/admin/api/resources/orders/actions/list?${q}`)],
        [
          'panel leads search',
          (q) =>
            seller.json('GET', `/admin/api/resources/leads/actions/search/${encodeURIComponent(q.slice(0, 30))}?${q}`),
        ],
        ['panel bulk delete page', (q) => seller.json('GET', `/admin/api/resources/leads/bulk/bulkDelete?${q}`)],
      ];
      const { lead, envelope, change } = bodies(acc, await realReferences(acc));
      const writes: [string, fc.Arbitrary<unknown>, (b: unknown) => Promise<{ status: number }>][] = [
        ['REST POST /leads', envelope('leads', lead), (b) => rest('POST', '/leads', b)],
        ['REST PUT /leads', envelope('leads', change), (b) => rest('PUT', '/leads', b)],
        ['REST POST /orders', envelope('orders', lead), (b) => rest('POST', '/orders', b)],
        [
          'dashboard POST /leads/store',
          fc.oneof(
            fc.record({ name: nasty, status: nasty, full_name: nasty, city_id: nasty }, { requiredKeys: [] }),
            nasty,
          ),
          (b) => seller.json('POST', '/leads/store', b),
        ],
        [
          'dashboard POST /leads/export',
          fc.oneof(
            fc.record({ format: nasty, status: nasty, created_from: nasty, search: nasty }, { requiredKeys: [] }),
            nasty,
          ),
          (b) => seller.json('POST', '/leads/export', b),
        ],
      ];
      for (const [name, arb, send] of writes) {
        await fc.assert(
          fc.asyncProperty(arb, async (b) => {
            const res = await send(b);
            expect(res.status, `${name} ${JSON.stringify(b)?.slice(0, 300)}`)
              .to.be.below(500)
              .and.not.equal(429);
          }),
          { seed: SEED, numRuns: 100 * SCALE },
        );
      }
      const per = Math.ceil((1500 * SCALE) / targets.length);
      for (const [name, get] of targets) {
        await fc.assert(
          fc.asyncProperty(query, async (q) => {
            const res = await get(q);
            expect(res.status, `${name} ?${q}`).to.be.below(500).and.not.equal(429);
          }),
          { seed: SEED, numRuns: per },
        );
      }
    });
  });
});
