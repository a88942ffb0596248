import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { ValidationError } from '../../src/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, makeUser, uid, type TestAccount, type TestUser } from '../factories.js';
import { dayIn, expectedReport } from '../kpi-expected.js';
import * as migration from '../../migrations/20261129000000-kpi-daily.js';
import * as localDays from '../../migrations/20261206000000-kpi-account-days.js';
import * as perAccount from '../../migrations/20261207000000-kpi-rebuild-per-account.js';
import * as speedToLead from '../../migrations/20261208300000-speed-to-lead.js';
import { jobDefinitions } from '../../jobs/index.js';
import { wallTimeToUtc } from '../../src/time-zones.js';

const DAY = 86_400_000;
/** The shops' zones: a lead's day is its account's day (Casablanca UTC+1, UTC+0 in Ramadan; Paris +1, +2 in summer). */
const SHOP_ZONE = 'Africa/Casablanca';
const OTHER_ZONE = 'Europe/Paris';
/** The calendar day `n` days before `day`. */
const minusDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY).toISOString().slice(0, 10);
/** Today in the zone, or `n` days before. */
const dayOf = (zone: string, n = 0) => minusDays(dayIn(new Date(), zone), n);
const today = () => dayOf(SHOP_ZONE);
/** The zone's midnight `n` days ago, plus `ms`. */
const daysAgo = (n: number, ms = 0, zone = SHOP_ZONE) => new Date(wallTimeToUtc(dayOf(zone, n), zone)!.getTime() + ms);

const sql = <T extends object>(text: string, bind: unknown[] = []) =>
  getCtx().db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });

const withoutAsOf = <T extends { as_of?: string; time_zone?: string }>(r: T) => {
  const { as_of: _asOf, time_zone: _zone, ...rest } = r;
  return rest;
};

const zoneOf = async (accountId: number) =>
  (await sql<{ z: string }>('SELECT time_zone AS z FROM accounts WHERE id = $1', [accountId]))[0].z;

interface Shop {
  acc: TestAccount;
  agents: TestUser[];
  refs: string[];
}

let phone = 0;
/** `n` leads of the account with varied cities, utm sources (in several key cases) and products. */
async function createLeads(acc: TestAccount, actor: TestUser, n: number): Promise<string[]> {
  const sources = [
    [{ key: 'utm_source', value: 'facebook' }],
    [{ key: 'UTM_Source', value: 'google' }],
    [{ key: 'campaign', value: 'x' }],
    [],
    [
      { key: 'utm_medium', value: 'cpc' },
      { key: 'Utm_source', value: 'tiktok' },
    ],
  ];
  const cities = ['Casablanca', 'Rabat', undefined, 'Fes'];
  const leads = Array.from({ length: n }, (_, i) => ({
    phone: `+2126${String(acc.id % 1000).padStart(3, '0')}${String(++phone).padStart(5, '0')}`,
    full_name: `Kpi Customer ${i}`,
    ...(cities[i % 4] ? { city: cities[i % 4] } : {}),
    data: sources[i % 5],
    products:
      i % 3 === 0
        ? [
            { sku: acc.skus.active[0], quantity: 1, price: 10 },
            { sku: acc.skus.active[1], quantity: 2, price: 20 },
            { sku: acc.skus.active[0], quantity: 1, price: 10 },
          ]
        : [{ sku: acc.skus.active[i % 3], quantity: 1, price: 10 }],
  }));
  return (await getCtx().services.leads.createMany(actor.actor, { leads })).references;
}

/** Leads over several days, statuses set by several agents, orders delivered, the cohort edges at local midnight. */
async function buildShop(zone: string): Promise<Shop> {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: zone });
  const agents = [acc.agent, await makeUser(ctx, acc.id, 'agent'), await makeUser(ctx, acc.id, 'agent')];
  const refs = await createLeads(acc, acc.seller, 30);
  const statuses = ['confirmed', 'wrong', 'no_answer', 'canceled', 'confirmed', 'call_later'];
  for (const [i, ref] of refs.entries()) {
    if (i % 7 === 6) continue; // stays new: only its creator touched it, so it has no agent
    const status = statuses[i % statuses.length];
    const action_date =
      status === 'call_later' ? `${new Date(Date.now() + DAY).toISOString().slice(0, 19)}+00:00` : undefined;
    await ctx.services.leads.updateStatuses(agents[i % 3].actor, { leads: [{ reference: ref, status, action_date }] });
  }
  // a second change by another agent: the latest one counts
  await ctx.services.leads.updateStatuses(agents[2].actor, { leads: [{ reference: refs[1], status: 'no_answer' }] });
  // spread over days; two leads on each side of the account's midnight
  for (const [i, ref] of refs.entries())
    await sql('UPDATE leads SET created_at = $2 WHERE reference = $1 AND account_id = $3', [
      ref,
      daysAgo(i % 6, (i * 3_600_000) % DAY, zone),
      acc.id,
    ]);
  await sql('UPDATE leads SET created_at = $2 WHERE reference = $1', [refs[2], daysAgo(2, -1, zone)]);
  await sql('UPDATE leads SET created_at = $2 WHERE reference = $1', [refs[3], daysAgo(2, 0, zone)]);
  await sql(
    `UPDATE orders SET status = 'delivered' WHERE account_id = $1
        AND lead_reference = ANY(SELECT reference FROM leads WHERE account_id = $1 AND id % 2 = 0)`,
    [acc.id],
  );
  return { acc, agents, refs };
}

async function expectReport(actor: TestUser, query: Record<string, unknown>, accountId: number | null) {
  const ctx = getCtx();
  const report = await ctx.services.kpi.kpi(actor.actor, query);
  // the days of the account's zone; of every account, each on its own, "today" the viewer's account's
  const zone = await zoneOf(accountId ?? (actor.actor as { accountId: number }).accountId);
  expect(report.time_zone).to.equal(zone);
  const to = (query.to as string) ?? dayOf(zone);
  const from = (query.from as string) ?? minusDays(to, 29);
  const by = (query.by as string) ?? 'product';
  expect(withoutAsOf(report), `${by} ${from}..${to}`).to.deep.equal(
    await expectedReport(ctx, { accountId, from, to, by }),
  );
  return report;
}

describe('KPI dashboard (daily rollup)', function () {
  this.timeout(120_000);
  let shop: Shop;
  let other: Shop;
  let admin: TestUser;

  before(async () => {
    shop = await buildShop(SHOP_ZONE);
    other = await buildShop(OTHER_ZONE);
    admin = await makeAdmin(getCtx());
    await getCtx().services.kpi.fold();
  });

  it('When folded, Then every figure (days × statuses, totals, each breakdown, rates) matches the rows', async () => {
    for (const by of ['product', 'city', 'source', 'agent'])
      for (const period of [{}, { from: dayOf(SHOP_ZONE, 3), to: today() }, { from: today(), to: today() }]) {
        await expectReport(shop.acc.seller, { by, ...period }, shop.acc.id);
      }
    const r = await getCtx().services.kpi.kpi(shop.acc.seller.actor, { by: 'source' });
    expect(r.days).to.have.length(30);
    expect(r.totals.leads).to.equal(30);
    expect(r.breakdown.map((b) => b.key)).to.have.members(['facebook', 'google', 'tiktok', '(none)']);
    expect(r.breakdown.find((b) => b.key === '(none)')!.leads).to.equal(12);
    const agents = await getCtx().services.kpi.kpi(shop.acc.seller.actor, { by: 'agent' });
    expect(agents.breakdown.map((b) => b.label)).to.include.members(shop.agents.map((a) => a.name));
    // the four leads nobody worked (i % 7 === 6) belong to no agent, not to the seller who created them
    expect(agents.breakdown.find((b) => b.key === '(nobody)')!.leads).to.equal(4);
    expect(agents.breakdown.map((b) => b.label)).not.to.include(shop.acc.seller.name);
  });

  it("When a lead was created either side of the account's midnight, Then it counts on the account's day", async () => {
    // buildShop puts five leads on each of these days: refs[2] 1 ms before the (Casablanca) midnight that starts day
    // -2 (so on day -3), refs[3] exactly at that midnight (day -2)
    for (const n of [2, 3]) {
      const r = await getCtx().services.kpi.kpi(shop.acc.seller.actor, {
        from: dayOf(SHOP_ZONE, n),
        to: dayOf(SHOP_ZONE, n),
      });
      expect(r.days).to.have.length(1);
      expect(r.totals.leads, `day -${n}`).to.equal(5);
    }
  });

  it('When rows change, Then the report keeps the folded figures until the next fold, which shows them', async () => {
    const ctx = getCtx();
    const before = await ctx.services.kpi.kpi(shop.acc.seller.actor, { by: 'city' });
    const [wrong] = await sql<{ reference: string }>(
      "SELECT reference FROM leads WHERE account_id = $1 AND status = 'wrong' ORDER BY id LIMIT 1",
      [shop.acc.id],
    );
    await ctx.services.leads.updateStatuses(shop.agents[1].actor, {
      leads: [{ reference: wrong.reference, status: 'confirmed' }],
    });
    await ctx.services.leads.deleteMany(shop.acc.seller.actor, { references: [shop.refs[9]] });
    // two leads far apart in one statement: their history marks a list of ids (one lead: a range)
    await ctx.services.leads.updateStatuses(shop.agents[2].actor, {
      leads: [
        { reference: shop.refs[0], status: 'canceled' },
        { reference: shop.refs[29], status: 'canceled' },
      ],
    });
    await sql("UPDATE orders SET status = 'delivered' WHERE lead_reference = $1", [wrong.reference]);
    await sql("UPDATE orders SET status = 'returned' WHERE account_id = $1 AND status = 'delivered' AND id % 3 = 0", [
      shop.acc.id,
    ]);
    // moved to another day, to another city, and to another account
    await sql("UPDATE leads SET created_at = created_at - interval '2 days', city = $2 WHERE reference = $1", [
      shop.refs[4],
      'Tangier',
    ]);
    await sql('DELETE FROM lead_products WHERE lead_id = (SELECT id FROM leads WHERE reference = $1)', [shop.refs[5]]);
    await sql('UPDATE leads SET data = \'[{"key":"UTM_SOURCE","value":"mail"}]\' WHERE reference = $1', [shop.refs[6]]);
    // (the lead alone: its products, history and order count where the lead is; row_counts keeps history totals per
    // account by insert and delete, so moving them by hand would leave those totals wrong)
    await sql('UPDATE leads SET account_id = $2 WHERE reference = $1 AND account_id = $3', [
      shop.refs[8],
      other.acc.id,
      shop.acc.id,
    ]);
    expect(withoutAsOf(await ctx.services.kpi.kpi(shop.acc.seller.actor, { by: 'city' }))).to.deep.equal(
      withoutAsOf(before),
    );
    const [marks] = await sql<{ days: number; lists: number; ranges: number }>(
      `SELECT count(day)::int AS days, count(lead_ids)::int AS lists, count(first_id)::int AS ranges FROM kpi_dirty`,
    );
    expect(marks.days && marks.lists && marks.ranges, JSON.stringify(marks)).to.be.greaterThan(0);
    const start = Date.now();
    expect(await ctx.services.kpi.fold()).to.be.greaterThan(0);
    for (const by of ['product', 'city', 'source', 'agent']) {
      const r = await expectReport(shop.acc.seller, { by }, shop.acc.id);
      expect(Date.parse(r.as_of)).to.be.at.least(start - 1000);
      await expectReport(other.acc.seller, { by }, other.acc.id);
    }
  });

  it('When folds run at once, alongside writes, Then nothing is counted twice, and a rebuild finds the same rows', async () => {
    const ctx = getCtx();
    await sql(
      "INSERT INTO kpi_dirty (account_id, day) SELECT $1, d::date FROM generate_series(now() - interval '9 days', now(), interval '1 day') d",
      [shop.acc.id],
    );
    const writes = (async () => {
      for (let i = 0; i < 5; i++) await createLeads(shop.acc, shop.acc.seller, 3);
    })();
    await Promise.all([ctx.services.kpi.fold(), ctx.services.kpi.fold(), ctx.services.kpi.fold(), writes]);
    // the worker's job, every minute, is the same fold
    const job = jobDefinitions.find((j) => j.name === 'fold-kpi')!;
    expect(job.every).to.equal('1 minute');
    await job.handler(ctx, {}, null as never);
    expect(await sql('SELECT 1 FROM kpi_dirty')).to.deep.equal([]);
    for (const by of ['product', 'agent']) await expectReport(shop.acc.seller, { by }, shop.acc.id);
    const rows = () => sql('SELECT * FROM kpi_daily ORDER BY account_id, dimension, day, key COLLATE "C"');
    const folded = await rows();
    expect(await ctx.services.kpi.rebuild()).to.be.greaterThan(0);
    expect(await rows()).to.deep.equal(folded);
    expect(await sql('SELECT * FROM kpi_dirty')).to.deep.equal([]);
  });

  it('When a seller, an agent or an admin asks, Then each sees the scope the policy allows', async () => {
    const own = await expectReport(shop.acc.seller, { account_id: other.acc.id, by: 'city' }, shop.acc.id);
    expect(own.account_id).to.equal(shop.acc.id);
    await expectReport(shop.agents[1], { by: 'agent' }, shop.acc.id);
    await expectReport(other.acc.seller, { by: 'source' }, other.acc.id);
    await expectReport(admin, { account_id: other.acc.id, by: 'product' }, other.acc.id);
    await getCtx().services.kpi.fold();
    const all = await expectReport(admin, { by: 'city' }, null);
    expect(all.account_id).to.equal(null);
    expect(all.totals.leads).to.be.at.least(60);
  });

  it('When a breakdown has more than 50 keys, Then the 50 largest come, largest first', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const leads = Array.from({ length: 56 }, (_, i) => ({
      phone: `+2127${String(acc.id % 1000).padStart(3, '0')}${String(i).padStart(5, '0')}`,
      full_name: `Town Customer ${i}`,
      city: i < 6 ? 'Zagora' : `Town ${uid()} ${i}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    }));
    await ctx.services.leads.createMany(acc.seller.actor, { leads });
    await ctx.services.kpi.fold();
    const r = await expectReport(acc.seller, { by: 'city' }, acc.id);
    expect(r.breakdown).to.have.length(50);
    expect(r.breakdown[0]).to.include({ key: 'Zagora', leads: 6, confirmation_rate: 0, delivery_rate: null });
  });

  it('When the query is bad, Then a ValidationError names the field (422), never a server error', async () => {
    const kpi = (q: unknown) => getCtx().services.kpi.kpi(shop.acc.seller.actor, q);
    const cases: [unknown, string][] = [
      [{ from: '2026-13-01' }, 'from'],
      [{ from: '2026-02-30' }, 'from'],
      [{ to: '2026-01-01T00:00:00Z' }, 'to'],
      [{ from: 20260101 }, 'from'],
      [{ from: ['2026-01-01'] }, 'from'],
      [{ by: 'status' }, 'by'],
      [{ by: "product'; --" }, 'by'],
      [{ from: '2026-03-02', to: '2026-03-01' }, 'to'],
      [{ from: minusDays(today(), -2) }, 'from'],
      [{ from: '2025-01-01', to: '2026-01-02' }, 'from'],
      [{ account_id: 'x' }, 'account_id'],
      [{ account_id: 99_999_999_999 }, 'account_id'],
      [{ page: 1 }, 'page'],
      ['from=2026-01-01', 'body'],
    ];
    for (const [q, field] of cases) {
      const err = await kpi(q).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(q)).to.be.instanceOf(ValidationError);
      expect(Object.keys((err as ValidationError).errors), JSON.stringify(q)).to.deep.equal([field]);
    }
    const unset = await kpi({ from: '', to: '', by: '', account_id: '' });
    expect([unset.days.length, unset.by, unset.to]).to.deep.equal([30, 'product', today()]);
    const leap = await kpi({ from: '2024-01-01', to: '2024-12-31' });
    expect(leap.days).to.have.length(366);
  });

  it('When the migration is reverted and applied again, Then it builds the rollup of the rows already there', async () => {
    const context = getCtx().db.sequelize;
    // the later migrations first: they redefine the rollup's functions
    await speedToLead.down({ name: 'speed-to-lead', context });
    await perAccount.down({ name: 'kpi-rebuild-per-account', context });
    await localDays.down({ name: 'kpi-account-days', context });
    await migration.down({ name: 'kpi-daily', context });
    const [gone] = await sql<{ t: string | null }>("SELECT to_regclass('kpi_daily')::text AS t");
    expect(gone.t).to.equal(null);
    await migration.up({ name: 'kpi-daily', context });
    await localDays.up({ name: 'kpi-account-days', context });
    await perAccount.up({ name: 'kpi-rebuild-per-account', context });
    await speedToLead.up({ name: 'speed-to-lead', context });
    for (const by of ['product', 'agent']) {
      await expectReport(shop.acc.seller, { by }, shop.acc.id);
      await expectReport(admin, { by, from: dayOf(await zoneOf(admin.actor.accountId as number), 9) }, null);
    }
  });
});
