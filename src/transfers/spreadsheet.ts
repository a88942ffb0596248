import fs from 'node:fs';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';

export type SheetType = 'xlsx' | 'csv';

/**
 * Decides the type by content, not by name: xlsx is a zip (PK\x03\x04) holding an `xl/` workbook; csv is text
 * (valid UTF-8, no NUL bytes). The declared extension must agree, so a renamed workbook or a binary is refused.
 */
export function sniffType(head: Buffer): SheetType | null {
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return head.includes('xl/') || head.includes('[Content_Types].xml') ? 'xlsx' : null;
  if (head.includes(0)) return null;
  const text = head.toString('utf8');
  // A cut multi-byte character at the end of the sample is fine; a replacement character elsewhere is not UTF-8.
  return text.slice(0, -4).includes('\uFFFD') ? null : 'csv';
}

export async function readHead(path: string, bytes = 64 * 1024): Promise<Buffer> {
  const fh = await fs.promises.open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

const cellText = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const o = v as { text?: unknown; result?: unknown; richText?: { text: string }[] };
    if (o.richText) return o.richText.map((r) => r.text).join('');
    if (o.text !== undefined) return String(o.text);
    if (o.result !== undefined) return String(o.result);
  }
  return String(v);
};

/** Streams the rows of the first sheet (or the CSV) as arrays of strings; memory stays flat whatever the size. */
export async function* readRows(path: string, type: SheetType): AsyncGenerator<string[]> {
  if (type === 'csv') {
    const parser = fs.createReadStream(path).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: true }));
    for await (const record of parser) yield record as string[];
    return;
  }
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore' });
  for await (const sheet of reader) {
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
      // row.values is sparse (no entry for an empty cell); Array.from visits the gaps too.
      const values = Array.from(row.values as unknown[], cellText).slice(1);
      if (values.some((v) => v !== '')) yield values;
    }
    return;
  }
}

/** The first characters that make a spreadsheet run a cell as a formula ("-" first, so it is literal in a bracket). */
export const FORMULA_CHARS = '-=+@\t\r';
const FORMULA = new RegExp(`^[${FORMULA_CHARS}]`);

/** Cells that a spreadsheet would run as a formula are written with a leading apostrophe. */
export function escapeCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return FORMULA.test(s) ? `'${s}` : s;
}

/** The reverse, for files this service exported. */
export function unescapeCell(s: string): string {
  return s.startsWith("'") && FORMULA.test(s.slice(1)) ? s.slice(1) : s;
}
