import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import { benchAccount, cpuSeconds, cpuSplit, peakRssMb } from './setup.js';

/**
 * Imports of a 100 k-row CSV and xlsx through the import service (the job's code path); rows/s and peak RSS.
 * `npm run bench -- import [rows] [csv|xlsx]` runs one format only (its own process, so its own peak RSS).
 */
export async function run(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 100_000);
  const { ctx, actor, skus } = await benchAccount();
  const dir = path.resolve('data/bench/files');
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
  const csvPath = path.join(dir, `import-${rows}.csv`);
  if (!fs.existsSync(csvPath)) {
    const out = fs.createWriteStream(csvPath);
    out.write(header.join(',') + '\n');
    for (let i = 0; i < rows; i++)
      if (!out.write(line(i).join(',') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
  }
  const xlsxPath = path.join(dir, `import-${rows}.xlsx`);
  if (!fs.existsSync(xlsxPath)) {
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: xlsxPath,
      useSharedStrings: false,
      useStyles: false,
    });
    const ws = wb.addWorksheet('Leads');
    ws.addRow(header).commit();
    for (let i = 0; i < rows; i++) ws.addRow(line(i + rows)).commit();
    ws.commit();
    await wb.commit();
  }
  try {
    for (const file of [csvPath, xlsxPath].filter((f) => !args[1] || f.endsWith(`.${args[1]}`))) {
      const copy = `${file}.upload`;
      fs.copyFileSync(file, copy);
      const r = await ctx.services.imports.start(actor, {
        path: copy,
        originalname: path.basename(file),
        size: fs.statSync(copy).size,
      });
      const t = performance.now();
      const cpu = cpuSeconds();
      await ctx.services.imports.run(r.id);
      const used = cpuSplit(cpu);
      const s = (performance.now() - t) / 1000;
      const done = (await ctx.models.ImportRun.findByPk(r.id))!;
      process.stdout.write(
        `import ${path.extname(file).slice(1)} ${rows} rows: ${s.toFixed(1)} s, ` +
          `${Math.round(done.rows_written / s)} rows/s written ` +
          `(${done.rows_written} written, ${done.rows_failed} failed, status ${done.status}), ${used}, ` +
          `peak RSS so far ${peakRssMb()} MB\n`,
      );
    }
  } finally {
    await ctx.close();
  }
}
