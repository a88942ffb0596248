import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { jobDefinitions } from '../../jobs/index.js';
import { INTAKE_RETENTION_JOB, intakeRetentionJob } from '../../jobs/intake-retention.job.js';
import { recordIntake } from '../../src/sources/intake.repository.js';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';

/** The intake log keeps 30 days (issue 34, docs/lead-sources.md "Intake log"). */
async function sourceWithLog(days: string[]) {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  const source = await ctx.services.sources.create(acc.seller.actor, { kind: 'form', name: 'Page' });
  for (const [i, age] of days.entries()) {
    await recordIntake(ctx.db.sequelize, {
      accountId: acc.id,
      sourceId: source.id,
      outcome: 'created',
      reason: `${i}`,
    });
    await ctx.db.sequelize.query(
      `UPDATE lead_intake SET received_at = now() - $1::interval WHERE reason = $2 AND source_id = $3`,
      {
        bind: [age, `${i}`, source.id],
      },
    );
  }
  return { acc, source };
}

const reasonsOf = (sourceId: number) =>
  getCtx()
    .db.sequelize.query<{ reason: string }>('SELECT reason FROM lead_intake WHERE source_id = $1 ORDER BY reason', {
      bind: [sourceId],
      type: QueryTypes.SELECT,
    })
    .then((rows) => rows.map((r) => r.reason));

describe('Intake log retention job', () => {
  it('When the job runs, Then entries older than 30 days go and younger ones stay, in every account', async () => {
    const a = await sourceWithLog(['1 hour', '29 days 23 hours', '30 days 1 hour', '400 days']);
    const b = await sourceWithLog(['31 days', '2 days']);

    const job = jobDefinitions.find((d) => d.name === INTAKE_RETENTION_JOB);
    expect(job).to.equal(intakeRetentionJob);
    await intakeRetentionJob.handler(getCtx(), {}, undefined as never);

    expect(await reasonsOf(a.source.id)).to.deep.equal(['0', '1']);
    expect(await reasonsOf(b.source.id)).to.deep.equal(['1']);
  });

  it('When more entries are old than one statement deletes, Then every one of them goes', async () => {
    const ctx = getCtx();
    const { acc, source } = await sourceWithLog([]);
    await ctx.db.sequelize.query(
      `INSERT INTO lead_intake (account_id, source_id, outcome, received_at)
       SELECT $1, $2, 'refused', now() - interval '40 days' FROM generate_series(1, 12001)`,
      { bind: [acc.id, source.id] },
    );

    const removed = await ctx.services.sources.removeOldIntake();

    expect(removed).to.be.at.least(12001);
    expect(await reasonsOf(source.id)).to.deep.equal([]);
  });
});
