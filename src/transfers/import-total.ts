import fs from 'node:fs';
import type { ImportRun } from './import-run.model.js';

/** How many data rows an import has (the header row aside), and whether that is an estimate. */
export interface RowsTotal {
  total: number;
  estimated: boolean;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Counts a CSV's records the way the reader splits them (csv-parse with skip_empty_lines and trim): its record
 * delimiter is the first line break outside quotes (\r\n, \n or \r) and only that one ends a record afterwards, a
 * line break inside quotes belongs to its field, and a line of blanks is no record. It looks at bytes only (no
 * fields are made). `ended` is where the last complete record ended, for an estimate from a sample. (The export's
 * csvRecordCounter counts files this service writes: one \n per record, no blank lines; an upload can be any CSV.)
 */
function uploadRecordCounter() {
  let quoted = false;
  let content = false;
  let delimiter: 'crlf' | 'lf' | 'cr' | null = null;
  /** An unquoted \r just seen, whose meaning depends on the next byte. */
  let afterCR = false;
  const state = { records: 0, ended: 0, seen: 0 };
  const endRecord = (at: number) => {
    if (content) state.records++;
    content = false;
    state.ended = at;
  };
  const byte = (b: number, at: number) => {
    if (afterCR) {
      afterCR = false;
      if (b === LF && (delimiter === null || delimiter === 'crlf')) {
        delimiter = 'crlf';
        return endRecord(at + 1);
      }
      if (delimiter === null) {
        delimiter = 'cr';
        endRecord(at);
      }
    }
    if (b === QUOTE) {
      quoted = !quoted; // an escaped quote ("") flips twice
      content = true;
    } else if (quoted) content = true;
    else if (b === CR && delimiter !== 'lf') {
      if (delimiter === 'cr') endRecord(at + 1);
      else afterCR = true;
    } else if (b === LF && (delimiter ?? 'lf') === 'lf') {
      delimiter = 'lf';
      endRecord(at + 1);
    } else if (b !== SPACE && b !== TAB && b !== CR && b !== LF) content = true;
  };
  return {
    state,
    feed(buf: Buffer) {
      for (let i = 0; i < buf.length; i++) byte(buf[i], state.seen + i);
      state.seen += buf.length;
    },
    /** The records once the file has ended (a last line without a line break counts). */
    end: () => state.records + (content ? 1 : 0),
  };
}

/** A CSV's data rows, counted in one streaming pass over its bytes. */
export async function countCsvRows(path: string): Promise<RowsTotal> {
  const counter = uploadRecordCounter();
  for await (const chunk of fs.createReadStream(path, { highWaterMark: 1 << 20 })) counter.feed(chunk as Buffer);
  return { total: Math.max(0, counter.end() - 1), estimated: false };
}

/**
 * A CSV's data rows from the sample read at upload: counted when the sample is the whole file, else estimated from
 * the file's size and the sample's bytes per record (labelled so, until the import job counts them). Null when the
 * sample holds no complete record.
 */
export function csvRowsFromSample(head: Buffer, size: number): RowsTotal | null {
  const counter = uploadRecordCounter();
  counter.feed(head);
  if (head.length >= size) return { total: Math.max(0, counter.end() - 1), estimated: false };
  const { records, ended } = counter.state;
  if (!records) return null;
  return { total: Math.max(0, Math.round((size * records) / ended) - 1), estimated: true };
}

/** The largest `rows_total` the column holds. */
const INT_MAX = 2 ** 31 - 1;

/** The first worksheet part, as the reader takes it (the first one in the zip). */
const SHEET_PART = /^xl\/worksheets\/[^/]+\.xml$/i;
/** `<dimension ref="A1:K5001"/>`: the sheet's used range, written before its rows. */
const DIMENSION = /<(?:\w+:)?dimension\s+ref="[A-Z]*(\d+):[A-Z]*(\d+)"/;
const SHEET_DATA = /<(?:\w+:)?sheetData[\s>/]/;
const ROW_TAG = /<(?:\w+:)?row[\s>]/g;

type ZipEntry = AsyncIterable<Buffer> & { path: string; autodrain(): unknown };

/** Counts `<row>` elements in the rest of the sheet part, a tag cut between two chunks included once. */
async function countRowTags(chunks: AsyncIterator<Buffer>, text: string): Promise<number> {
  let rows = 0;
  let carry = '';
  for (let next: string | null = text; next !== null;) {
    const joined = carry + next;
    for (const m of joined.matchAll(ROW_TAG)) if (m.index + m[0].length > carry.length) rows++;
    carry = joined.slice(-16);
    const r = await chunks.next();
    next = r.done ? null : r.value.toString('latin1');
  }
  return rows;
}

/**
 * The sheet part's dimension, read from its first bytes; without one, or one past `maxRows` (any program may write
 * `A1:Z1048576`, and no column holds more than an int), its row tags counted.
 */
async function sheetRows(entry: ZipEntry, maxRows: number): Promise<RowsTotal> {
  const chunks = entry[Symbol.asyncIterator]();
  let head = '';
  for (;;) {
    const r = await chunks.next();
    if (r.done) break;
    head += r.value.toString('latin1'); // tags are ASCII; the bytes of other characters never form one
    if (SHEET_DATA.test(head) || head.length > 1 << 20) break;
  }
  const dim = DIMENSION.exec(head.split(SHEET_DATA)[0]);
  // the range's first row is the header
  const claimed = dim ? Number(dim[2]) - Number(dim[1]) : 0;
  if (claimed > 0 && claimed <= maxRows) return { total: claimed, estimated: false };
  return { total: Math.max(0, (await countRowTags(chunks, head)) - 1), estimated: false };
}

/**
 * A workbook's data rows: its first sheet's `<dimension ref>` (the used range the writing program declares; blank
 * rows inside it count, so it can be a little high), or its `<row>` elements counted when the dimension is absent or a
 * single cell. Runs in the job, after the real inflated sizes were checked (inflatedSizeProblem), since it inflates
 * the parts before the sheet.
 */
export async function countXlsxRows(path: string, maxRows = INT_MAX): Promise<RowsTotal | null> {
  const { default: unzipper } = await import('unzipper');
  const source = fs.createReadStream(path);
  const zip = source.pipe(unzipper.Parse({ forceStream: true }));
  try {
    for await (const entry of zip as AsyncIterable<ZipEntry>) {
      if (SHEET_PART.test(entry.path)) return await sheetRows(entry, Math.min(maxRows, INT_MAX));
      entry.autodrain();
    }
    return null;
  } finally {
    source.destroy();
  }
}

/**
 * The run's total as the job starts: counted unless a count is already stored (a resumed run). A workbook's dimension
 * is taken up to `maxRows` (the import's row limit): past it the rows are counted.
 */
export async function recordTotal(model: typeof ImportRun, run: ImportRun, maxRows: number): Promise<void> {
  if (run.rows_total !== null && !run.rows_total_estimated) return;
  const counted =
    run.file_type === 'csv' ? await countCsvRows(run.file_path) : await countXlsxRows(run.file_path, maxRows + 1);
  if (!counted) return;
  counted.total = Math.min(counted.total, INT_MAX);
  await model.update(
    { rows_total: counted.total, rows_total_estimated: counted.estimated },
    { where: { id: run.id, status: 'running' } },
  );
  run.set({ rows_total: counted.total, rows_total_estimated: counted.estimated });
}
