import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { systemActor, tokenActor, type Actor } from '../../src/actor.js';
import { ValidationError } from '../../src/errors.js';
import { DELAY_EDGES, blocksOf } from '../../src/stats/kpi-speed.schemas.js';
import * as speedMigration from '../../migrations/20261208300000-speed-to-lead.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, makeUser, type TestAccount, type TestUser } from '../factories.js';
import { dayIn } from '../kpi-expected.js';
import { EDGES, expectedSpeed } from '../kpi-speed-expected.js';
import { wallTimeToUtc } from '../../src/time-zones.js';

const DAY = 86_400_000;
const sql = <T extends object>(text: string, bind: unknown[] = []) =>
  getCtx().db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });

/** The report without its labels and envelope: the figures the expected computation has. */
function figuresOf(r: Awaited<ReturnType<ReturnType<typeof getCtx>['services']['kpi']['speed']>>) {
  const bare = <T extends { label?: string }>(rows: T[]) => rows.map(({ label: _label, ...rest }) => rest);
  return {
    days: r.days,
    by_agent: bare(r.by_agent),
    by_source: bare(r.by_source),
    bands: r.bands,
    returns: { city: bare(r.returns.city), product: bare(r.returns.product), agent: bare(r.returns.agent) },
  };
}

interface Shop {
  acc: TestAccount;
  agents: TestUser[];
  token: Actor;
  zone: string;
  refs: string[];
}

let phone = 0;
async function create(acc: TestAccount, actor: Actor, n: number, city: string): Promise<string[]> {
  const leads = Array.from({ length: n }, (_, i) => ({
    phone: `+2126${String(acc.id % 1000).padStart(3, '0')}${String(++phone).padStart(5, '0')}`,
    full_name: `Speed Customer ${i}`,
    city: i % 2 ? city : ` ${city}  `,
    products: [{ sku: acc.skus.active[i % 2], quantity: 1, price: 10 }],
  }));
  return (await getCtx().services.leads.createMany(actor, { leads })).references;
}

const move = (actor: Actor, reference: string, status: string) =>
  getCtx().services.leads.updateStatuses(actor, { leads: [{ reference, status }] });

/**
 * Twelve panel leads and four REST leads; touched by two agents (one after the other), by the REST token, by
 * `system` alone, by `system` then an agent, by nobody; created back in time so that their delays fall on and around
 * the bands' limits and their days on either side of the account's midnight; orders delivered and returned.
 */
async function buildShop(zone: string): Promise<Shop> {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: zone });
  const agents = [acc.agent, await makeUser(ctx, acc.id, 'agent')];
  const value = await acc.token(['CREATE LEADS', 'UPDATE LEADS', 'VIEW LEADS']);
  const tokenId = Number(value.split('|')[0]);
  const token = tokenActor(
    { id: tokenId, user_id: acc.seller.id, account_id: acc.id, name: 'shop', scopes: ['CREATE LEADS', 'UPDATE LEADS'] },
    { name: acc.seller.name, role: 'seller' },
  );
  const refs = [...(await create(acc, acc.seller.actor, 12, 'Casablanca')), ...(await create(acc, token, 4, 'Rabat'))];
  const [a, b] = agents.map((u) => u.actor);
  const plan: [Actor, number, string][] = [
    [a, 0, 'confirmed'],
    [b, 0, 'no_answer'], // a second touch: the first stays a's
    [b, 1, 'no_answer'],
    [a, 1, 'confirmed'],
    [token, 2, 'wrong'],
    [systemActor(acc.id), 3, 'duplicate'], // not a person
    [a, 3, 'confirmed'],
    [systemActor(acc.id), 4, 'wrong'], // system only: never touched
    [a, 6, 'new'], // the same status again: no change, no touch
    [b, 7, 'confirmed'],
    [a, 8, 'confirmed'],
    [b, 9, 'canceled'],
    [a, 10, 'confirmed'],
    [b, 11, 'call_later'],
    [a, 12, 'confirmed'],
    [b, 13, 'confirmed'],
  ];
  for (const [actor, i, status] of plan) {
    const action_date =
      status === 'call_later' ? `${new Date(Date.now() + DAY).toISOString().slice(0, 19)}+00:00` : undefined;
    await ctx.services.leads.updateStatuses(actor, { leads: [{ reference: refs[i], status, action_date }] });
  }
  // delays in seconds from creation to the first touch: on, under and over the limits; untouched leads by age
  const delays = [30, 899.5, 900, 900.000001, 2_400, 3_600, 7_200, 14_399, 20_000, 200_000, 3_000_000, 61, 59, 1e6];
  for (const [i, seconds] of delays.entries())
    await sql(
      `UPDATE leads SET created_at = coalesce(first_touch_at, now()) - $2 * interval '1 second'
        WHERE reference = $1 AND account_id = $3`,
      [refs[i], seconds, acc.id],
    );
  // two untouched leads either side of the account's midnight five days ago
  const midnight = wallTimeToUtc(minusDays(dayIn(new Date(), zone), 5), zone)!.getTime();
  await sql('UPDATE leads SET created_at = $2 WHERE reference = $1', [refs[14], new Date(midnight - 1)]);
  await sql('UPDATE leads SET created_at = $2 WHERE reference = $1', [refs[15], new Date(midnight)]);
  await sql(
    `UPDATE orders SET status = CASE WHEN id % 3 = 0 THEN 'returned' ELSE 'delivered' END
      WHERE account_id = $1 AND lead_reference = ANY($2)`,
    [acc.id, refs.slice(0, 11)],
  );
  return { acc, agents, token, zone, refs };
}

const minusDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY).toISOString().slice(0, 10);

async function expectSpeed(shop: Shop, actor: Actor, query: Record<string, string | number> = {}) {
  const report = await getCtx().services.kpi.speed(actor, query);
  const to = (query.to as string) ?? dayIn(new Date(), shop.zone);
  const from = (query.from as string) ?? minusDays(to, 29);
  expect([report.account_id, report.from, report.to, report.time_zone]).to.deep.equal([
    shop.acc.id,
    from,
    to,
    shop.zone,
  ]);
  expect(figuresOf(report), `${from}..${to}`).to.deep.equal(
    await expectedSpeed(getCtx(), shop.acc.id, shop.zone, from, to),
  );
  return report;
}

describe('KPI speed to lead and return rate', function () {
  this.timeout(120_000);
  let shop: Shop;
  let other: Shop;

  before(async () => {
    shop = await buildShop('Africa/Casablanca');
    other = await buildShop('Europe/Paris');
    await getCtx().services.kpi.fold();
  });

  it('When a person first changes a status, Then the lead records that time and person; system and repeats do not', async () => {
    const rows = await sql<{ reference: string; at: Date | null; user: number | null; changed: Date | null }>(
      `SELECT l.reference, l.first_touch_at AS at, l.first_touch_user_id AS user,
              (SELECT min(h.changed_at) FROM lead_histories h WHERE h.lead_id = l.id AND h.changed_by_user_id IS NOT NULL
                  AND h.old_status IS NOT NULL AND h.old_status <> h.new_status) AS changed
         FROM leads l WHERE l.account_id = $1`,
      [shop.acc.id],
    );
    const of = new Map(rows.map((r) => [r.reference, r]));
    const [a, b] = shop.agents.map((u) => u.id);
    const users = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => of.get(shop.refs[i])!.user);
    expect(users).to.deep.equal([a, b, shop.acc.seller.id, a, null, null, null, b]);
    for (const r of rows) expect(r.at?.getTime() ?? null, r.reference).to.equal(r.changed?.getTime() ?? null);
    const entry = await sql<{ entry_point: string }>(
      'SELECT entry_point FROM leads WHERE account_id = $1 ORDER BY id',
      [shop.acc.id],
    );
    expect(entry.map((e) => e.entry_point)).to.deep.equal([...Array(12).fill('panel'), ...Array(4).fill('api')]);
  });

  it('When folded, Then every speed and return figure equals the one computed from the histories and orders', async () => {
    const today = dayIn(new Date(), shop.zone);
    const periods: Record<string, string>[] = [
      {},
      { from: minusDays(today, 44), to: today },
      { from: today, to: today },
    ];
    for (const period of periods) await expectSpeed(shop, shop.acc.seller.actor, period);
    const r = await expectSpeed(shop, shop.acc.seller.actor, { from: minusDays(today, 60), to: today });
    // the figures the page shows, spelled out: three people touched leads; two leads only system or nobody touched
    expect(r.by_agent.map((x) => x.label)).to.have.members([...shop.agents.map((u) => u.name), shop.acc.seller.name]);
    expect(r.by_source.map((x) => x.key)).to.have.members(['panel', 'api']);
    expect(r.bands.find((x) => x.band === 'untouched')!.leads).to.equal(5);
    expect(r.bands.find((x) => x.band === 'under_15m')).to.include({ leads: 4 });
    expect(r.returns.agent.map((x) => x.label)).to.include.members(shop.agents.map((u) => u.name));
    expect(r.returns.product.map((x) => x.label)).to.include(`Product ${shop.acc.skus.active[0]}`);
  });

  it("When a lead was made either side of the account's midnight, Then its day is the account's", async () => {
    const day = minusDays(dayIn(new Date(), shop.zone), 5);
    const [before, after] = await Promise.all(
      [minusDays(day, 1), day].map((d) => getCtx().services.kpi.speed(shop.acc.seller.actor, { from: d, to: d })),
    );
    expect([before.bands[4].leads, after.bands[4].leads]).to.deep.equal([1, 1]);
    await expectSpeed(shop, shop.acc.seller.actor, { from: minusDays(day, 1), to: day });
  });

  it('When two accounts have figures, Then each sees only its own, whatever account_id it sends; an admin picks', async () => {
    await expectSpeed(shop, shop.acc.seller.actor, { account_id: other.acc.id });
    await expectSpeed(other, other.agents[1].actor, {});
    const admin = await makeAdmin(getCtx());
    await expectSpeed(other, admin.actor, { account_id: other.acc.id });
    const own = await getCtx().services.kpi.speed(shop.acc.seller.actor, {});
    const names = own.by_agent.map((x) => x.label);
    for (const u of other.agents) expect(names).not.to.include(u.name);
  });

  it('When the query is tampered with, Then a ValidationError names the field and nothing is read', async () => {
    const cases: [unknown, string][] = [
      [{ from: '2026-02-30' }, 'from'],
      [{ to: "2026-01-01'; --" }, 'to'],
      [{ by: 'delay' }, 'by'],
      [{ account_id: [1, 2] }, 'account_id'],
      [{ from: '2025-01-01', to: '2026-06-01' }, 'from'],
      [{ span: 9 }, 'span'],
    ];
    for (const [q, field] of cases) {
      const err = await getCtx()
        .services.kpi.speed(shop.acc.seller.actor, q)
        .catch((e: unknown) => e);
      expect(err, JSON.stringify(q)).to.be.instanceOf(ValidationError);
      expect(Object.keys((err as ValidationError).errors)).to.deep.equal([field]);
    }
  });

  it('When later changes come, Then the first touch stays and the next fold shows the new figures', async () => {
    const [a, b] = shop.agents.map((u) => u.actor);
    await move(b, shop.refs[5], 'no_answer'); // its first touch, now
    await move(a, shop.refs[0], 'confirmed'); // a later change: the first touch stays
    await sql("UPDATE orders SET status = 'returned' WHERE account_id = $1 AND status = 'delivered'", [shop.acc.id]);
    await getCtx().services.leads.deleteMany(shop.acc.seller.actor, { references: [shop.refs[9]] });
    await getCtx().services.kpi.fold();
    const today = dayIn(new Date(), shop.zone);
    const r = await expectSpeed(shop, shop.acc.seller.actor, { from: minusDays(today, 60), to: today });
    expect(r.returns.city.every((c) => c.delivered === 0)).to.equal(true);
    await expectSpeed(other, other.acc.seller.actor, { from: minusDays(today, 60), to: today });
  });

  it('When days were folded one by one, Then every block of the histograms equals what a rebuild computes', async () => {
    const rows = async () => [
      await sql('SELECT * FROM kpi_delays ORDER BY account_id, span, block, dimension, key, bucket'),
      await sql('SELECT * FROM kpi_delay_days ORDER BY account_id, day'),
    ];
    const folded = await rows();
    // every span holds rows: a block is the sum of its two halves, up to 512 days
    expect(new Set(folded[0].map((r) => (r as { span: number }).span)).size).to.equal(10);
    expect(await getCtx().services.kpi.rebuild()).to.be.greaterThan(0);
    expect(await rows()).to.deep.equal(folded);
  });

  it('When the migration is reverted and applied again, Then the backfill finds the same touches and figures', async () => {
    const context = getCtx().db.sequelize;
    const touches = () =>
      sql('SELECT id, first_touch_at, first_touch_user_id, entry_point FROM leads WHERE account_id = $1 ORDER BY id', [
        shop.acc.id,
      ]);
    const before = await touches();
    await speedMigration.down({ name: 'speed-to-lead', context });
    await speedMigration.up({ name: 'speed-to-lead', context });
    expect(await touches()).to.deep.equal(before);
    const today = dayIn(new Date(), shop.zone);
    await expectSpeed(shop, shop.acc.seller.actor, { from: minusDays(today, 60), to: today });
  });

  it('When leads come through an import, Then they count under import; a revoked token leaves its leads under api', async () => {
    const ctx = getCtx();
    const name = path.join(os.tmpdir(), `speed-${Date.now()}.csv`);
    const rows = [1, 2].map(
      (n) => `+2126${String(shop.acc.id % 1000).padStart(3, '0')}9${n}000,${shop.acc.skus.active[0]}`,
    );
    await fs.promises.writeFile(name, ['phone,sku', ...rows].join('\n'));
    const run = await ctx.services.imports.start(shop.acc.seller.actor, {
      path: name,
      originalname: 'speed.csv',
      size: (await fs.promises.stat(name)).size,
    });
    await ctx.services.imports.run(run.id);
    const [imported] = await sql<{ reference: string }>(
      "SELECT reference FROM leads WHERE import_run_id = $1 AND entry_point = 'import' ORDER BY id LIMIT 1",
      [run.id],
    );
    await move(shop.agents[1].actor, imported.reference, 'no_answer');
    const tokenId = shop.token.kind === 'token' ? shop.token.tokenId : 0;
    await ctx.services.tokens.revokeToken(shop.acc.seller.actor, tokenId);
    await ctx.services.kpi.fold();
    const r = await ctx.services.kpi.speed(shop.acc.seller.actor, {});
    expect(r.by_source.find((x) => x.key === 'import')).to.include({ touched: 1 });
    const entries = await sql<{ entry_point: string; n: number }>(
      `SELECT entry_point, count(*)::int AS n FROM leads WHERE account_id = $1 GROUP BY 1 ORDER BY 1`,
      [shop.acc.id],
    );
    expect(entries).to.deep.equal([
      { entry_point: 'api', n: 4 },
      { entry_point: 'import', n: 2 },
      { entry_point: 'panel', n: 11 },
    ]);
  });

  it('When delays fall on the resolution edges, Then SQL, the service and the docs agree on every bucket', async () => {
    expect(DELAY_EDGES).to.deep.equal(EDGES);
    const [row] = await sql<{ on: number[]; above: number[] }>(
      `SELECT array_agg(kpi_delay_bucket(e) ORDER BY i) AS on, array_agg(kpi_delay_bucket(e + 0.000001) ORDER BY i) AS above
         FROM unnest($1::numeric[]) WITH ORDINALITY AS x(e, i)`,
      [EDGES],
    );
    expect(row.on).to.deep.equal(EDGES.map((_, i) => i));
    expect(row.above).to.deep.equal(EDGES.map((_, i) => Math.min(i + 1, EDGES.length - 1)));
    for (const [first, last] of [
      [9_000, 9_000],
      [9_131, 9_496],
      [9_001, 9_366],
      [0, 365],
    ]) {
      const { spans, blocks } = blocksOf(first, last);
      const days = spans.flatMap((s, i) => Array.from({ length: 2 ** s }, (_, d) => blocks[i] * 2 ** s + d));
      expect(days).to.deep.equal(Array.from({ length: last - first + 1 }, (_, d) => first + d));
      expect(spans.length).to.be.at.most(18);
    }
  });
});
