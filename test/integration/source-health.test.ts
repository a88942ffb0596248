import { expect } from 'chai';
import { recordIntake } from '../../src/sources/intake.repository.js';
import type { IntakeOutcome } from '../../src/sources/lead-source.model.js';
import { sourceHealth } from '../../src/sources/source-health.js';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';

/** The one "failing" rule (issue 34): of at least 10 submissions in 24 hours, more than half refused or rate limited. */
async function sourceWith(outcomes: IntakeOutcome[], oldRefusals = 0) {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  // priced (a default product): a form that cannot price a lead is `no_products` whatever its counts (issue 41)
  const source = await ctx.services.sources.create(acc.seller.actor, {
    kind: 'form',
    name: 'Page',
    default_products: [{ sku: acc.skus.active[0] }],
  });
  for (const outcome of outcomes)
    await recordIntake(ctx.db.sequelize, { accountId: acc.id, sourceId: source.id, outcome });
  for (let i = 0; i < oldRefusals; i++)
    await recordIntake(ctx.db.sequelize, { accountId: acc.id, sourceId: source.id, outcome: 'refused', reason: 'old' });
  await ctx.db.sequelize.query(
    "UPDATE lead_intake SET received_at = now() - interval '25 hours' WHERE source_id = $1 AND reason = 'old'",
    { bind: [source.id] },
  );
  return { acc, source };
}
const times = <T>(n: number, v: T): T[] => Array.from({ length: n }, () => v);

describe('Lead source health', () => {
  it('When fewer than 10 submissions arrived, Then the source is ok however many were refused', () => {
    expect(sourceHealth(9, 9)).to.deep.equal({ state: 'ok', received_24h: 9, refused_24h: 9 });
  });

  it('When a form cannot price a lead, Then it is no_products whatever its counts (issue 41)', () => {
    expect(sourceHealth(20, 15, false)).to.deep.equal({ state: 'no_products', received_24h: 20, refused_24h: 15 });
    expect(sourceHealth(0, 0, false).state).to.equal('no_products');
  });

  it('When exactly half of 10 are refused, Then ok; one more than half, Then failing', () => {
    expect(sourceHealth(10, 5).state).to.equal('ok');
    expect(sourceHealth(10, 6).state).to.equal('failing');
  });

  it('When a source’s refusals and rate limits outnumber its leads today, Then its show and list say failing', async () => {
    const ctx = getCtx();
    const outcomes = [...times(4, 'created'), ...times(4, 'refused'), ...times(3, 'rate_limited')] as IntakeOutcome[];
    const { acc, source } = await sourceWith(outcomes, 20);

    const shown = await ctx.services.sources.show(acc.seller.actor, source.id);
    const listed = await ctx.services.sources.list(acc.seller.actor, {});

    expect(shown.health).to.deep.equal({ state: 'failing', received_24h: 11, refused_24h: 7 });
    expect(listed.data[0].health).to.deep.equal(shown.health);
    // the panel's list, through the service, as its seller; another account's seller is answered no count of it
    const other = await makeAccount(ctx);
    expect((await ctx.services.sources.health(acc.seller.actor, [source.id])).get(source.id)).to.deep.equal(
      shown.health,
    );
    expect((await ctx.services.sources.health(other.seller.actor, [source.id])).get(source.id)).to.deep.equal({
      state: 'ok',
      received_24h: 0,
      refused_24h: 0,
    });
  });

  it('When the refusals are older than 24 hours, Then they do not count and the source is ok', async () => {
    const ctx = getCtx();
    const { acc, source } = await sourceWith([...times(10, 'created'), 'duplicate'] as IntakeOutcome[], 30);

    const shown = await ctx.services.sources.show(acc.seller.actor, source.id);

    expect(shown.health).to.deep.equal({ state: 'ok', received_24h: 11, refused_24h: 0 });
  });
});
