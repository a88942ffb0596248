import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { EXPORT_COLUMNS } from '../../src/leads/lead-export.repository.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';

const run = promisify(execFile);
const col = (name: string) => EXPORT_COLUMNS.indexOf(name) + 1;

/** A Paris account's lead called back 1 Dec 2026 13:30 UTC (14:30 in Paris, +01:00), created 1 Jul 10:00 UTC (+02:00). */
async function parisLead(): Promise<TestAccount> {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: 'Europe/Paris' });
  const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
    leads: [
      {
        phone: '+33612345678',
        full_name: 'Paris Lead',
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
      },
    ],
  });
  await ctx.models.Lead.update(
    { action_date: new Date('2026-12-01T13:30:00Z'), created_at: new Date('2026-07-01T10:00:00Z') },
    { where: { reference: references[0] }, silent: true },
  );
  return acc;
}

async function exportFile(acc: TestAccount, ext: 'csv' | 'xlsx'): Promise<string> {
  const ctx = getCtx();
  const started = await ctx.services.exports.start(acc.seller.actor, { file_extension: ext });
  await ctx.services.exports.run(started.id);
  const done = (await ctx.models.ExportRun.findByPk(started.id))!;
  expect(done.status).to.equal('completed');
  return done.file_path!;
}

describe('export times in the account zone (docs/decisions.md, "Time zones")', function () {
  this.timeout(120_000);

  it("When leads are exported as CSV, Then times are ISO 8601 with the account's offset and the zone is named", async () => {
    const acc = await parisLead();
    const [header, row] = fs
      .readFileSync(await exportFile(acc, 'csv'), 'utf8')
      .trim()
      .split('\n');
    expect(header.split(',').slice(-3)).to.deep.equal(['action_date', 'created_at', 'time_zone']);
    expect(row.split(',').slice(-3)).to.deep.equal([
      '2026-12-01T14:30:00+01:00',
      '2026-07-01T12:00:00+02:00',
      'Europe/Paris',
    ]);
  });

  it('When leads are exported as Excel, Then the times are date cells holding the zone wall time, read as dates by LibreOffice', async () => {
    const acc = await parisLead();
    const file = await exportFile(acc, 'xlsx');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.worksheets[0];
    const cell = ws.getRow(2).getCell(col('action_date'));
    expect(cell.type).to.equal(ExcelJS.ValueType.Date);
    expect((cell.value as Date).toISOString()).to.equal('2026-12-01T14:30:00.000Z'); // the wall time, as Excel keeps it
    expect(cell.numFmt).to.equal('yyyy-mm-dd hh:mm:ss');
    expect(ws.getRow(1).getCell(col('time_zone')).value).to.equal('time_zone');
    expect(ws.getRow(2).getCell(col('time_zone')).value).to.equal('Europe/Paris');
    if (!fs.existsSync('/usr/bin/soffice')) return console.log('      LibreOffice check skipped: soffice not found');
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'export-times-'));
    await run(
      'soffice',
      ['--headless', `-env:UserInstallation=file://${out}/profile`, '--convert-to', 'csv', '--outdir', out, file],
      {
        timeout: 90_000,
      },
    );
    const [, line] = fs
      .readFileSync(path.join(out, `${path.basename(file, '.xlsx')}.csv`), 'utf8')
      .trim()
      .split('\n');
    // a date cell is written with its number format; a text cell would keep the ISO text
    expect(line).to.include('2026-12-01 14:30:00').and.include('2026-07-01 12:00:00');
    fs.rmSync(out, { recursive: true, force: true });
  });
});
