import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createJobSystem } from '../../jobs/agenda.js';
import type { JobDefinition } from '../../jobs/job.js';
import { createMetrics } from '../../src/metrics.js';
import { createServices } from '../../src/services.js';
import { makeAccount, uid } from '../factories.js';
import { getCtx } from '../hooks.js';
import { waitFor } from '../spawn.js';

type LogRecord = { level: number; msg: string; [k: string]: unknown };

/** A logger writing into `lines`, as the process's own (JSON records) would. */
function capture() {
  const lines: LogRecord[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info', base: undefined }, sink) };
}

describe('logs of jobs and of a requested shutdown', function () {
  this.timeout(60_000);

  it('When a worker runs jobs, Then each run writes one info line (job, id, account, duration, outcome); When it stops with a job still running, Then that job is handed back with info lines only', async () => {
    const ctx = getCtx();
    const { lines, logger } = capture();
    const jobs = await createJobSystem(ctx.config, ctx.db.url, logger, createMetrics());
    const tag = uid();
    const def = (name: string, handler: JobDefinition['handler']): JobDefinition => ({
      name: `${name}-${tag}`,
      priority: 'NORMAL',
      concurrency: () => 1,
      handler,
    });
    let heldStarted = false;
    let heldSawHandBack = false;
    const defs = [
      def('log-ok', async () => {}),
      def('log-fail', async () => {
        throw new Error('the carrier said no');
      }),
      def('log-held', async (_ctx, _data, _job, handedBack) => {
        heldStarted = true;
        await new Promise<void>((resolve) => handedBack!.addEventListener('abort', () => resolve()));
        heldSawHandBack = true;
      }),
    ];
    try {
      await jobs.startWorker(ctx, defs);
      await jobs.queue.enqueue(defs[0].name, { accountId: 42 });
      await jobs.queue.enqueue(defs[1].name, {});
      await jobs.queue.enqueue(defs[2].name, { accountId: 43 });
      const runs = () => lines.filter((l) => l.msg === 'job run');
      expect(await waitFor(async () => runs().length === 2 && heldStarted, 20_000), JSON.stringify(lines)).to.equal(
        true,
      );
      const ok = runs().find((l) => l.job === defs[0].name)!;
      expect(ok).to.include({ level: 30, account_id: 42, outcome: 'succeeded' });
      expect(ok.job_id).to.be.a('string');
      expect(ok.duration_ms).to.be.a('number');
      expect(runs().find((l) => l.job === defs[1].name)).to.include({
        level: 30,
        account_id: null,
        outcome: 'failed',
        err: 'the carrier said no',
      });
    } finally {
      await jobs.close({ graceMs: 300 });
    }
    expect(heldSawHandBack, 'the handler learnt it was handed back').to.equal(true);
    const held = lines.filter((l) => l.msg === 'job run' && l.job === defs[2].name);
    expect(held).to.have.length(1);
    expect(held[0]).to.include({ level: 30, account_id: 43, outcome: 'handed back' });
    expect(lines.filter((l) => l.level >= 40)).to.deep.equal([]);
    const [row] = (await ctx.db.sequelize.query('SELECT locked_at, last_finished_at FROM agenda_jobs WHERE name = $1', {
      bind: [defs[2].name],
    })) as [{ locked_at: Date; last_finished_at: Date | null }[], unknown];
    expect(row[0].locked_at.getTime(), 'handed back: another worker takes it at once').to.equal(0);
    expect(row[0].last_finished_at, 'its outcome is not recorded').to.equal(null);
    await ctx.db.sequelize.query('DELETE FROM agenda_jobs WHERE name = ANY($1)', { bind: [defs.map((d) => d.name)] });
  });

  it('When an import is handed back at shutdown, Then it logs one info line, stays running with its file, and is not failed', async () => {
    const ctx = getCtx();
    const { lines, logger } = capture();
    const services = createServices({ ...ctx, logger });
    const acc = await makeAccount(ctx);
    const file = path.join(os.tmpdir(), `handback-${process.pid}-${acc.id}.csv`);
    const sku = acc.skus.active[0];
    const rows = Array.from({ length: 20 }, (_, i) => `+21261999${String(i).padStart(4, '0')},Buyer ${i},${sku}`);
    await fs.promises.writeFile(file, `phone,full_name,sku\n${rows.join('\n')}\n`);
    const run = await services.imports.start(acc.seller.actor, { path: file, originalname: 'back.csv', size: 1 });
    try {
      const stopping = new AbortController();
      stopping.abort();
      await services.imports.run(run.id, stopping.signal);
      expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([[30, 'import handed back at shutdown; resumes later']]);
      const stored = await ctx.models.ImportRun.findByPk(run.id);
      expect(stored!.status).to.equal('running');
      expect(fs.existsSync(stored!.file_path), 'the upload is kept for the next attempt').to.equal(true);
      await services.imports.run(run.id);
      const after = (await ctx.models.ImportRun.findByPk(run.id))!;
      expect(after.status, String(after.error)).to.equal('completed');
    } finally {
      await ctx.db.sequelize.query("DELETE FROM agenda_jobs WHERE name = 'import-leads' AND data->>'runId' = $1", {
        bind: [String(run.id)],
      });
    }
  });
});
