import { expect } from 'chai';
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createJobSystem, type JobSystem } from '../../jobs/agenda.js';
import { jobDefinitions } from '../../jobs/index.js';
import type { JobDefinition } from '../../jobs/job.js';
import { CLEANUP_JOBS_JOB, cleanupJobsJob } from '../../jobs/job-store.job.js';
import { getCtx } from '../hooks.js';

/**
 * agenda_jobs stays bounded: finished one-off jobs leave after JOBS_RETENTION_HOURS (24), failed ones after
 * JOBS_FAILED_RETENTION_DAYS (7); repeating jobs and jobs still to run stay. Time is made to pass by moving the jobs'
 * finish times back.
 */
describe('job table retention', () => {
  const tag = crypto.randomBytes(4).toString('hex');
  const names = { ok: `test-ok-${tag}`, bad: `test-bad-${tag}`, every: `test-every-${tag}`, idle: `test-idle-${tag}` };
  const defs: JobDefinition[] = [
    { name: names.ok, priority: 'NORMAL', concurrency: () => 2, handler: async () => {} },
    {
      name: names.bad,
      priority: 'NORMAL',
      concurrency: () => 2,
      handler: async () => {
        throw new Error('refused for the test');
      },
    },
    { name: names.every, priority: 'NORMAL', concurrency: () => 1, every: '1 hour', handler: async () => {} },
  ];
  let jobs: JobSystem;
  before(async () => {
    jobs = await createJobSystem(getCtx().config, getCtx().db.url, getCtx().logger, getCtx().metrics);
    await jobs.startWorker(getCtx(), defs);
  });
  after(async function () {
    this.timeout(20_000);
    await jobs.close();
  });

  type Row = { name: string; n: number };
  const rows = async () => {
    const found = await getCtx().db.sequelize.query<Row>(
      `SELECT name, count(*)::int AS n FROM agenda_jobs WHERE name = ANY($1) GROUP BY name`,
      { bind: [Object.values(names)], type: QueryTypes.SELECT },
    );
    return Object.fromEntries(found.map((r) => [r.name, r.n]));
  };
  /** Moves the finish (and failure) times of the finished jobs named back by `interval`. */
  const age = (name: string, interval: string) =>
    getCtx().db.sequelize.query(
      `UPDATE agenda_jobs SET last_finished_at = last_finished_at - $2::interval,
              failed_at = failed_at - $2::interval, last_run_at = last_run_at - $2::interval
        WHERE name = $1 AND last_finished_at IS NOT NULL`,
      { bind: [name, interval] },
    );
  const finished = async (name: string, count: number) => {
    const [{ n }] = await getCtx().db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM agenda_jobs WHERE name = $1 AND last_finished_at IS NOT NULL
          AND next_run_at IS NULL AND locked_at IS NULL`,
      { bind: [name], type: QueryTypes.SELECT },
    );
    return n === count;
  };
  const waitUntil = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await check()).to.equal(true);
  };

  it('When finished one-off jobs are older than the retention, Then the clean-up removes them and keeps the failed ones for 7 days, repeating jobs and jobs still to run', async function () {
    this.timeout(60_000);
    const queue = getCtx().queue;
    for (let i = 0; i < 3; i++) await queue.enqueue(names.ok, { i });
    for (let i = 0; i < 2; i++) await queue.enqueue(names.bad, { i });
    await queue.enqueue(names.idle, {}); // no worker runs it: it waits
    await waitUntil(() => finished(names.ok, 3));
    await waitUntil(() => finished(names.bad, 2));
    expect(await rows()).to.deep.equal({ [names.ok]: 3, [names.bad]: 2, [names.every]: 1, [names.idle]: 1 });

    // 23 hours later nothing has gone
    await age(names.ok, '23 hours');
    await age(names.bad, '23 hours');
    const cleanup = jobDefinitions.find((d) => d.name === CLEANUP_JOBS_JOB)!;
    expect(cleanup).to.equal(cleanupJobsJob);
    expect(cleanup.every).to.equal('1 minute');
    await cleanup.handler(getCtx(), {}, undefined as never);
    expect(await rows()).to.deep.equal({ [names.ok]: 3, [names.bad]: 2, [names.every]: 1, [names.idle]: 1 });

    // a day later the succeeded ones go, the failed ones stay for inspection
    await age(names.ok, '2 hours');
    await age(names.bad, '2 hours');
    expect(await getCtx().jobs.removeFinished()).to.be.at.least(3);
    expect(await rows()).to.deep.equal({ [names.bad]: 2, [names.every]: 1, [names.idle]: 1 });

    // after 7 days the failed ones go too; the repeating job and the waiting one stay whatever their age
    await age(names.bad, '6 days');
    await getCtx().db.sequelize.query(
      `UPDATE agenda_jobs SET created_at = created_at - interval '30 days' WHERE name = ANY($1)`,
      { bind: [[names.every, names.idle]] },
    );
    expect(await getCtx().jobs.removeFinished()).to.be.at.least(2);
    expect(await rows()).to.deep.equal({ [names.every]: 1, [names.idle]: 1 });
  });

  it('When a job that finished long ago runs again (a retry, or held by a worker), Then it stays', async function () {
    this.timeout(30_000);
    const [{ id }] = await getCtx().db.sequelize.query<{ id: string }>(
      `INSERT INTO agenda_jobs (name, type, data, last_finished_at, failed_at, last_run_at, next_run_at, locked_at)
       VALUES ($1, 'normal', '{}', now() - interval '30 days', now() - interval '30 days', now(), NULL, now())
       RETURNING id`,
      { bind: [names.idle], type: QueryTypes.SELECT },
    );
    const retrying = await getCtx().db.sequelize.query<{ id: string }>(
      `INSERT INTO agenda_jobs (name, type, data, last_finished_at, failed_at, next_run_at)
       VALUES ($1, 'normal', '{}', now() - interval '30 days', now() - interval '30 days', now() + interval '1 hour')
       RETURNING id`,
      { bind: [names.idle], type: QueryTypes.SELECT },
    );
    await getCtx().jobs.removeFinished();
    const left = await getCtx().db.sequelize.query<{ id: string }>('SELECT id FROM agenda_jobs WHERE id = ANY($1)', {
      bind: [[id, retrying[0].id]],
      type: QueryTypes.SELECT,
    });
    expect(left).to.have.length(2);
  });
});
