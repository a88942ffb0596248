import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { benchAccount, cpuSeconds, cpuSplit, peakRssMb } from './setup.js';

/** Exports of 1 M leads to CSV and xlsx through the export service (the job's code path); rows/s and peak RSS. */
export async function run(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 1_000_000);
  const { ctx, accountId, actor } = await benchAccount();
  const { sequelize } = ctx.db;
  try {
    const t0 = performance.now();
    // Bulk-generated rows (one product each) so the figure is the export, not the set-up.
    await sequelize.query(
      `INSERT INTO leads
         (account_id, reference, phone, phone_normalized, full_name, city, status, total, data, created_at)
       SELECT $1, 'LD' || lpad(to_hex(g), 10, '0'), '+2126' || lpad(g::text, 8, '0'), '+2126' || lpad(g::text, 8, '0'),
              'Customer ' || g, 'Casablanca', 'new', 150, '[{"key":"utm","value":"fb"}]'::jsonb,
              now() - make_interval(secs => g)
         FROM generate_series(1, $2) g`,
      { bind: [accountId, total] },
    );
    await sequelize.query(
      `INSERT INTO lead_products (account_id, lead_id, sku, name, quantity, price, position)
       SELECT account_id, id, 'B-1', 'B-1', 1, 150, 0 FROM leads WHERE account_id = $1`,
      { bind: [accountId] },
    );
    // Vacuumed like rows that have been in the table a while (hint bits and visibility map set), as an export
    // finds them.
    await sequelize.query('VACUUM ANALYZE leads, lead_products');
    process.stdout.write(`generated ${total} leads in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    for (const ext of ['csv', 'xlsx'] as const) {
      const r = await ctx.services.exports.start(actor, { file_extension: ext });
      const t = performance.now();
      const cpu = cpuSeconds();
      await ctx.services.exports.run(r.id);
      const used = cpuSplit(cpu);
      const s = (performance.now() - t) / 1000;
      const done = (await ctx.models.ExportRun.findByPk(r.id))!;
      const size = done.file_path ? fs.statSync(done.file_path).size : 0;
      process.stdout.write(
        `export ${ext} ${done.rows_written} rows: ${s.toFixed(1)} s, ${Math.round(done.rows_written / s)} rows/s, ` +
          `${(size / 2 ** 20).toFixed(0)} MB file, status ${done.status}, ${used}, ` +
          `peak RSS so far ${peakRssMb()} MB\n`,
      );
      if (done.file_path) fs.rmSync(done.file_path, { force: true });
    }
  } finally {
    await ctx.close();
  }
}
