import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import { benchAccount, cpuSeconds, cpuSplit, peakRssMb, postmasterPid, treeCpuSince } from './setup.js';

/**
 * Imports of a generated CSV and xlsx (100 k rows by default) through the import service (the job's code path):
 * rows/s, CPU of Node and of PostgreSQL, peak RSS, and the RSS sampled every second during the run (flat memory).
 * `npm run bench -- import [rows] [csv|xlsx]` runs one format only (its own process, so its own peak RSS);
 * `npm run bench -- import 1000000 csv` is the 1 M-row run (setup.ts raises IMPORT_MAX_ROWS for the bench).
 * A file is generated once (under BENCH_DATA_DIR/files) and reused; only the formats asked for are generated.
 */
export async function run(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 100_000);
  const formats = (args[1] ? [args[1]] : ['csv', 'xlsx']) as ('csv' | 'xlsx')[];
  const { ctx, actor, skus } = await benchAccount();
  const dir = path.resolve(process.env.BENCH_DATA_DIR ?? './data/bench', 'files');
  fs.mkdirSync(dir, { recursive: true });
  const line = (i: number) => [
    `+2127${String(i).padStart(8, '0')}`,
    skus[i % 3],
    `Customer ${i}`,
    'Casablanca',
    String(1 + (i % 3)),
    '150',
    `campaign-${i % 7}`,
  ];
  const header = ['phone', 'sku', 'full_name', 'city', 'quantity', 'price', 'utm_campaign'];
  try {
    for (const format of formats) {
      const file = path.join(dir, `import-${rows}.${format}`);
      if (!fs.existsSync(file)) await (format === 'csv' ? writeCsv : writeXlsx)(file, rows, header, line);
      const copy = `${file}.upload`;
      fs.copyFileSync(file, copy);
      const r = await ctx.services.imports.start(actor, {
        path: copy,
        originalname: path.basename(file),
        size: fs.statSync(copy).size,
      });
      const rss: number[] = [];
      const sampler = setInterval(() => rss.push(Math.round(process.memoryUsage().rss / 1048576)), 1000);
      const server = postmasterPid(ctx);
      const t = performance.now();
      const cpu = cpuSeconds();
      const ownSince = server ? treeCpuSince(server) : null;
      await ctx.services.imports.run(r.id);
      const used = cpuSplit(cpu);
      const ownUsed = ownSince ? `, of which this bench's server ${ownSince().toFixed(1)} s` : '';
      const s = (performance.now() - t) / 1000;
      clearInterval(sampler);
      const done = (await ctx.models.ImportRun.findByPk(r.id))!;
      const quarter = Math.max(1, Math.floor(rss.length / 4));
      process.stdout.write(
        `import ${format} ${rows} rows: ${s.toFixed(1)} s, ${Math.round(done.rows_written / s)} rows/s written ` +
          `(${done.rows_written} written, ${done.rows_failed} failed, status ${done.status}), ${used}${ownUsed}, ` +
          `peak RSS so far ${peakRssMb()} MB, RSS during the run (1 s samples) first quarter max ` +
          `${Math.max(...rss.slice(0, quarter), 0)} MB, last quarter max ${Math.max(...rss.slice(-quarter), 0)} MB\n`,
      );
    }
  } finally {
    await ctx.close();
  }
}

async function writeCsv(file: string, rows: number, header: string[], line: (i: number) => string[]) {
  const out = fs.createWriteStream(file);
  out.write(header.join(',') + '\n');
  for (let i = 0; i < rows; i++)
    if (!out.write(line(i).join(',') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((r) => out.end(() => r()));
}

async function writeXlsx(file: string, rows: number, header: string[], line: (i: number) => string[]) {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
  const ws = wb.addWorksheet('Leads');
  ws.addRow(header).commit();
  for (let i = 0; i < rows; i++) ws.addRow(line(i + rows)).commit();
  ws.commit();
  await wb.commit();
}
