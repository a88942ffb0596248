import { expect } from 'chai';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { expectedReport } from '../kpi-expected.js';
import { jobDefinitions } from '../../jobs/index.js';
import { KPI_CHANNEL } from '../../src/stats/kpi-zones.repository.js';

const sql = <T extends object>(text: string, bind: unknown[] = []) =>
  getCtx().db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });

/**
 * Instants around local midnights: 30 Nov 2026 (Casablanca and Paris both UTC+1), 1 Mar 2026 (Casablanca UTC+0 in
 * Ramadan, Paris +1) and 14 Jul 2026 (Casablanca +1, Paris +2).
 */
const AROUND = [
  '2026-11-30T22:59:59.999Z', // 30 Nov 23:59:59 in both
  '2026-11-30T23:00:00Z', // 1 Dec 00:00 in both
  '2026-11-30T23:30:00Z', // 1 Dec 00:30 in both (UTC: still 30 Nov)
  '2026-12-01T00:30:00Z', // 1 Dec in both
  '2026-03-01T23:30:00Z', // Casablanca 1 Mar 23:30, Paris 2 Mar 00:30
  '2026-07-14T22:30:00Z', // Casablanca 14 Jul 23:30, Paris 15 Jul 00:30
];
const PERIOD = { from: '2026-03-01', to: '2026-12-31' };

let phone = 0;
/** An account in `zone` with one lead created at each instant of AROUND. */
async function shopIn(zone: string): Promise<TestAccount> {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: zone });
  const leads = AROUND.map((_, i) => ({
    phone: `+2126${String(acc.id % 1000).padStart(3, '0')}${String(++phone).padStart(5, '0')}`,
    full_name: `Midnight ${i}`,
    products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
  }));
  const { references } = await ctx.services.leads.createMany(acc.seller.actor, { leads });
  for (const [i, ref] of references.entries())
    await sql('UPDATE leads SET created_at = $2 WHERE reference = $1 AND account_id = $3', [ref, AROUND[i], acc.id]);
  return acc;
}

/** The report's days that have leads: `{ day: leads }`. */
async function leadDays(acc: TestAccount): Promise<Record<string, number>> {
  const r = await getCtx().services.kpi.kpi(acc.seller.actor, PERIOD);
  const out: Record<string, number> = {};
  for (const d of r.days) {
    const n = Object.values(d.counts).reduce((a, b) => a + b, 0);
    if (n) out[d.day] = n;
  }
  return out;
}

const expectAsComputed = async (acc: TestAccount) => {
  const { as_of: _asOf, time_zone: _zone, ...report } = await getCtx().services.kpi.kpi(acc.seller.actor, PERIOD);
  expect(report).to.deep.equal(await expectedReport(getCtx(), { accountId: acc.id, by: 'product', ...PERIOD }));
};

describe("KPI days in the account's time zone", function () {
  this.timeout(60_000);
  let casablanca: TestAccount;
  let paris: TestAccount;

  before(async () => {
    casablanca = await shopIn('Africa/Casablanca');
    paris = await shopIn('Europe/Paris');
    await getCtx().services.kpi.fold();
  });

  it("When leads are made around the account's midnight, Then each counts on the account's day", async () => {
    expect(await leadDays(casablanca)).to.deep.equal({
      '2026-03-01': 1,
      '2026-07-14': 1,
      '2026-11-30': 1,
      '2026-12-01': 3,
    });
    expect(await leadDays(paris)).to.deep.equal({
      '2026-03-02': 1,
      '2026-07-15': 1,
      '2026-11-30': 1,
      '2026-12-01': 3,
    });
    const report = await getCtx().services.kpi.kpi(paris.seller.actor, PERIOD);
    expect(report.time_zone).to.equal('Europe/Paris');
    await expectAsComputed(casablanca);
    await expectAsComputed(paris);
  });

  it("When the account's zone changes, Then the job it wakes rebuilds its days, and no other account's", async () => {
    const ctx = getCtx();
    const others = () => sql('SELECT * FROM kpi_daily WHERE account_id = $1 ORDER BY dimension, day, key', [paris.id]);
    const before = await others();
    const acc = await shopIn('Europe/Paris');
    await ctx.services.kpi.fold();
    const days = await leadDays(acc);
    await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: 'America/New_York' });
    // the change asks for the account's days and wakes the job, which recomputes them in the new zone (New York is
    // UTC-5 in winter, -4 in summer)
    expect(await leadDays(acc), 'the old days until the job').to.deep.equal(days);
    expect(await sql('SELECT account_id FROM kpi_zone_rebuilds WHERE account_id = $1', [acc.id])).to.have.length(1);
    // the worker's job, woken by the change's NOTIFY (and every minute)
    const job = jobDefinitions.find((j) => j.name === 'rebuild-kpi-zones')!;
    expect(job.wakeOn).to.equal(KPI_CHANNEL);
    await job.handler(ctx, {}, null as never);
    expect(await sql('SELECT account_id FROM kpi_zone_rebuilds WHERE account_id = $1', [acc.id])).to.have.length(0);
    expect(await leadDays(acc)).to.deep.equal({ '2026-03-01': 1, '2026-07-14': 1, '2026-11-30': 4 });
    expect((await ctx.services.kpi.kpi(acc.seller.actor, PERIOD)).time_zone).to.equal('America/New_York');
    await expectAsComputed(acc);
    expect(await others()).to.deep.equal(before);
    // a rebuild of everything finds the same rows
    const rows = () => sql('SELECT * FROM kpi_daily WHERE account_id = $1 ORDER BY dimension, day, key', [acc.id]);
    const rebuilt = await rows();
    await ctx.services.kpi.rebuild();
    expect(await rows()).to.deep.equal(rebuilt);
  });

  it('When a lead is written while the zone changes, Then the write waits and marks its days of the new zone', async () => {
    const ctx = getCtx();
    const acc = await shopIn('Africa/Casablanca');
    await ctx.services.kpi.fold();
    // 1 Dec 00:30 UTC, moved to 30 Nov 23:30 UTC: 1 Dec in Casablanca either way, two days in UTC
    const [lead] = await sql<{ id: string }>('SELECT id FROM leads WHERE account_id = $1 AND created_at = $2', [
      acc.id,
      AROUND[3],
    ]);
    const writer = new pg.Client({ connectionString: ctx.db.url });
    await writer.connect();
    let waited = false;
    try {
      let moved!: Promise<unknown>;
      // a zone change holding the account's row as saveZone does (and its rebuild, which the job makes after it), while
      // another connection moves the lead
      await ctx.db.sequelize.transaction(async (transaction) => {
        const run = (text: string) => ctx.db.sequelize.query(text, { bind: [acc.id], transaction });
        await run('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE');
        moved = writer.query("UPDATE leads SET created_at = '2026-11-30T23:30:00Z' WHERE id = $1", [lead.id]);
        for (let i = 0; i < 50 && !waited; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          const [w] = await sql<{ e: string | null }>(
            'SELECT wait_event_type AS e FROM pg_stat_activity WHERE pid = $1',
            [(writer as unknown as { processID: number }).processID],
          );
          waited = w?.e === 'Lock';
        }
        await run("UPDATE accounts SET time_zone = 'UTC' WHERE id = $1");
        await run('SELECT kpi_rebuild($1)');
      });
      await moved;
    } finally {
      await writer.end();
    }
    expect(waited, 'the write waited for the zone change').to.equal(true);
    const marks = await sql<{ day: string }>(
      'SELECT DISTINCT day::text AS day FROM kpi_dirty WHERE account_id = $1 ORDER BY 1',
      [acc.id],
    );
    expect(marks.map((m) => m.day)).to.deep.equal(['2026-11-30', '2026-12-01']);
    await ctx.services.kpi.fold();
    await expectAsComputed(acc);
  });
  it("When one account's zone change is rebuilding, Then the fold goes on for every other account and keeps its marks", async () => {
    const ctx = getCtx();
    const busy = await shopIn('Africa/Casablanca');
    const other = await shopIn('Europe/Paris');
    await ctx.services.kpi.fold();
    const marksOf = async (id: number) =>
      Number((await sql<{ n: string }>('SELECT count(*) AS n FROM kpi_dirty WHERE account_id = $1', [id]))[0].n);
    const rebuilder = new pg.Client({ connectionString: ctx.db.url });
    const folder = new pg.Client({ connectionString: ctx.db.url });
    await Promise.all([rebuilder.connect(), folder.connect()]);
    try {
      // the zone change of `busy`, held open as a long rebuild would be
      await rebuilder.query('BEGIN');
      await rebuilder.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [busy.id]);
      await rebuilder.query('SELECT kpi_rebuild($1)', [busy.id]);
      // a new lead of the other account, and a mark of the busy one made before its change (as a fold would find)
      await sql("UPDATE leads SET status = 'confirmed' WHERE account_id = $1", [other.id]);
      await sql("INSERT INTO kpi_dirty (account_id, day) VALUES ($1, '2026-12-01')", [busy.id]);
      await folder.query("SET statement_timeout = '5s'");
      await folder.query('SELECT kpi_fold()'); // waited for the whole rebuild before, whatever the account
      expect(await marksOf(other.id)).to.equal(0);
      expect(await marksOf(busy.id)).to.equal(1); // left for the next fold, after the change commits
      await rebuilder.query('COMMIT');
      await expectAsComputed(other);
      await ctx.services.kpi.fold();
      expect(await marksOf(busy.id)).to.equal(0);
      await expectAsComputed(busy);
    } finally {
      await rebuilder.query('ROLLBACK').catch(() => undefined);
      await Promise.all([rebuilder.end(), folder.end()]);
    }
  });
});
