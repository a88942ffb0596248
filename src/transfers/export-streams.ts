import fs from 'node:fs';
import { Transform, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pipeline } from 'node:stream/promises';
import type ExcelJS from 'exceljs';
import { loadExcelJS } from '../excel.js';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Sequelize } from 'sequelize';
import { withPgClient } from '../db/index.js';
import { EXPORT_COLUMNS, type ExportSlice, type leadExport } from '../leads/lead-export.repository.js';
import { PRIVATE_FILE_MODE } from '../private-files.js';

type LeadExport = ReturnType<typeof leadExport>;

/**
 * The CSV in two halves, newer and older than the middle of the rows' created_at span, formatted at once by two
 * connections that share one snapshot (formatting is PostgreSQL's work, so this puts both cores on it); the newer
 * half goes straight into the file, the older one into a second file appended after it.
 */
export async function csvInHalves(
  sequelize: Sequelize,
  query: LeadExport,
  file: string,
  progress: { rows: number },
): Promise<number> {
  return withPgClient(sequelize, (a) =>
    withPgClient(sequelize, async (b) => {
      await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const [{ snapshot }] = (await a.query('SELECT pg_export_snapshot() AS snapshot')).rows;
      await b.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await b.query(`SET TRANSACTION SNAPSHOT ${pg.escapeLiteral(snapshot)}`);
      const [{ middle }] = (await a.query(query.middle.sql, query.middle.params)).rows as { middle: string | null }[];
      const half = (client: pg.Client, slice: ExportSlice, header: boolean) => {
        const select = query.rows(slice);
        return client.query(copyTo(`COPY (${select}) TO STDOUT WITH (FORMAT csv${header ? ', HEADER' : ''})`));
      };
      const rest = `${file}.older`;
      try {
        const out = fs.createWriteStream(file);
        out.write('\uFEFF');
        const newer = half(a, middle === null ? 'all' : { after: middle }, true);
        const older = middle === null ? null : half(b, { upTo: middle }, false);
        await Promise.all([
          pipeline(newer, csvRecordCounter(progress, true), out),
          older &&
            pipeline(older, csvRecordCounter(progress, false), fs.createWriteStream(rest, { mode: PRIVATE_FILE_MODE })),
        ]);
        if (older) await pipeline(fs.createReadStream(rest), fs.createWriteStream(file, { flags: 'a' }));
        await Promise.all([a.query('COMMIT'), b.query('COMMIT')]);
        return newer.rowCount + (older?.rowCount ?? 0);
      } finally {
        await fs.promises.rm(rest, { force: true });
      }
    }),
  );
}

/** The xlsx file: COPY's text format through copyTextRows into exceljs's streaming writer. */
export async function xlsxFile(sequelize: Sequelize, query: LeadExport, file: string, progress: { rows: number }) {
  return withPgClient(sequelize, async (client) => {
    const source = client.query(copyTo(`COPY (${query.rows('all')}) TO STDOUT`));
    await pipeline(source, copyTextRows(), xlsxSink(await loadExcelJS(), file, progress));
    return source.rowCount;
  });
}

/**
 * Counts the CSV records passing through (a newline outside double quotes ends one; a header, if any, counts as none).
 * Two cached indexOf positions per chunk keep it linear.
 */
export function csvRecordCounter(progress: { rows: number }, withHeader = true): Transform {
  let quoted = false;
  let header = withHeader;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      let i = 0;
      let q = -2;
      let nl = -2;
      for (;;) {
        if (q !== -1 && q < i) q = chunk.indexOf(0x22, i);
        if (quoted) {
          if (q < 0) break;
          quoted = false;
          i = q + 1;
          continue;
        }
        if (nl !== -1 && nl < i) nl = chunk.indexOf(0x0a, i);
        if (nl < 0 && q < 0) break;
        if (q >= 0 && (nl < 0 || q < nl)) {
          quoted = true;
          i = q + 1;
        } else {
          if (header) header = false;
          else progress.rows++;
          i = nl + 1;
        }
      }
      done(null, chunk);
    },
  });
}

/** Cells of COPY's text format: `\N` is NULL, a backslash escapes the next character (b f n r t v name controls). */
const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const copyCell = (s: string): string | null =>
  s === '\\N' ? null : s.includes('\\') ? s.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c] ?? c) : s;

/**
 * Rows of `COPY … TO STDOUT` in text format, as arrays of cells, one array of rows per chunk. Every row is one line
 * (newlines in values arrive escaped) and cells are tab-separated, so a split does the parsing.
 */
export function copyTextRows(): Transform {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const rows = (lines: string[]) => (lines.length ? lines.map((l) => l.split('\t').map(copyCell)) : undefined);
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, done) {
      const lines = (rest + decoder.write(chunk)).split('\n');
      rest = lines.pop()!;
      done(null, rows(lines));
    },
    flush(done) {
      const tail = rest + decoder.end();
      done(null, rows(tail ? [tail] : []));
    },
  });
}

/** Export columns written as numbers in xlsx. */
const NUMERIC = new Set(['quantity', 'price', 'total'].map((c) => EXPORT_COLUMNS.indexOf(c)));
/** Export columns written as date cells in xlsx: the wall time of the lead's account zone (named in `time_zone`). */
const DATES = new Set(['action_date', 'created_at'].map((c) => EXPORT_COLUMNS.indexOf(c)));
const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** An xlsx cell's value: a number, a date (`2026-12-01T14:30:00+01:00` → the date cell 2026-12-01 14:30), text. */
function xlsxValue(v: string | null, column: number): string | number | Date | undefined {
  if (v === null || v === '') return undefined;
  if (NUMERIC.has(column)) return Number(v);
  // exceljs writes a Date's UTC fields: the wall time goes in as UTC, so the cell reads the zone's clock
  if (DATES.has(column)) return new Date(`${v.slice(0, 19)}Z`);
  return v;
}

/**
 * exceljs's streaming writer: no shared strings; empty cells left out, amounts as numbers, times as date cells.
 * Its sheet stream pushes into the zip's deflate stream without backpressure, so rows wait while more than 1 MB of
 * sheet XML is queued there (memory stays flat).
 */
function xlsxSink(excel: typeof ExcelJS, file: string, progress: { rows: number }): Writable {
  // styles on: a date cell needs its number format
  const wb = new excel.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: true });
  const ws = wb.addWorksheet('Leads');
  for (const column of DATES) ws.getColumn(column + 1).width = 20;
  ws.addRow(EXPORT_COLUMNS).commit();
  const backlog = () => {
    const dest = (
      ws as unknown as { stream?: { pipes?: (NodeJS.EventEmitter & { _writableState?: { length: number } })[] } }
    ).stream?.pipes?.[0];
    return dest && (dest._writableState?.length ?? 0) > 1 << 20 ? dest : null;
  };
  return new Writable({
    objectMode: true,
    write(rows: (string | null)[][], _enc, done) {
      for (const row of rows) {
        const added = ws.addRow(row.map(xlsxValue));
        for (const column of DATES) added.getCell(column + 1).numFmt = DATE_FORMAT;
        added.commit();
      }
      progress.rows += rows.length;
      const dest = backlog();
      if (!dest) return done();
      // the zip stream either drains or fails; waiting on 'drain' alone would hang the job on a failure
      const drained = () => {
        dest.off('error', failed);
        done();
      };
      const failed = (err: Error) => {
        dest.off('drain', drained);
        done(err);
      };
      dest.once('drain', drained).once('error', failed);
    },
    final(done) {
      ws.commit();
      wb.commit().then(() => done(), done);
    },
  });
}
