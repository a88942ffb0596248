import fs from 'node:fs';
import { parse } from 'csv-parse';
import type ExcelJS from 'exceljs';
import { loadExcelJS } from './excel.js';

export type SheetType = 'xlsx' | 'csv';

/**
 * Decides the type by content, not by name: xlsx is a zip (PK\x03\x04) holding an `xl/` workbook; csv is text
 * (valid UTF-8, no NUL bytes). The declared extension must agree, so a renamed workbook or a binary is refused.
 */
export function sniffType(head: Buffer): SheetType | null {
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50)
    return head.includes('xl/') || head.includes('[Content_Types].xml') ? 'xlsx' : null;
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

/** What a workbook may expand to before it is read (a zip bomb is a few KB that inflate to gigabytes). */
export interface ExpansionLimits {
  /** The shared strings part, which the reader keeps in memory whole. */
  sharedStringsBytes: number;
  /** All entries together, which the reader inflates as it streams. */
  totalBytes: number;
  /** Uncompressed / compressed size of any one entry; XML compresses 5–20×, a bomb by thousands. */
  ratio: number;
}

/**
 * Reads the zip's central directory (sizes only, nothing is inflated) and names the first limit the workbook would
 * break, or null. A zip64 entry (sizes of 4 GB or more) or a directory that cannot be read counts as too large.
 */
export async function workbookExpansionProblem(path: string, limits: ExpansionLimits): Promise<string | null> {
  const fh = await fs.promises.open(path, 'r');
  try {
    const { size } = await fh.stat();
    const tailLength = Math.min(size, 22 + 65_535);
    const tail = Buffer.alloc(tailLength);
    await fh.read(tail, 0, tailLength, size - tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) return 'The file is not a readable xlsx workbook.';
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (dirOffset + dirSize > size || dirOffset === 0xffffffff) return 'The file is not a readable xlsx workbook.';
    const dir = Buffer.alloc(dirSize);
    await fh.read(dir, 0, dirSize, dirOffset);
    let total = 0;
    for (let i = 0, at = 0; i < entries; i++) {
      if (at + 46 > dir.length || dir.readUInt32LE(at) !== 0x02014b50)
        return 'The file is not a readable xlsx workbook.';
      const compressed = dir.readUInt32LE(at + 20);
      const uncompressed = dir.readUInt32LE(at + 24);
      const nameLength = dir.readUInt16LE(at + 28);
      const name = dir.toString('utf8', at + 46, at + 46 + nameLength);
      at += 46 + nameLength + dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32);
      if (compressed === 0xffffffff || uncompressed === 0xffffffff) return 'The workbook is too large to import.';
      total += uncompressed;
      if (uncompressed > 1024 * 1024 && uncompressed / Math.max(1, compressed) > limits.ratio)
        return (
          `The workbook's ${name} expands ${Math.round(uncompressed / Math.max(1, compressed))} times; ` +
          'it is refused as a decompression bomb.'
        );
      if (/sharedStrings\.xml$/i.test(name) && uncompressed > limits.sharedStringsBytes)
        return (
          `The workbook's shared strings expand to ${Math.round(uncompressed / 1048576)} MB, ` +
          `more than the ${Math.round(limits.sharedStringsBytes / 1048576)} MB allowed.`
        );
    }
    return total > limits.totalBytes
      ? `The workbook expands to ${Math.round(total / 1048576)} MB, ` +
          `more than the ${Math.round(limits.totalBytes / 1048576)} MB allowed.`
      : null;
  } finally {
    await fh.close();
  }
}

/**
 * Inflates the workbook the way the reader will (the same zip parser, entry by entry from the local headers, which is
 * what it trusts, not the central directory), counting bytes and keeping none, and names the first limit the real
 * content breaks, or null. A file whose directory lies about its sizes passes workbookExpansionProblem; not this.
 * Memory stays flat; it costs one extra inflation, so it runs in the import job, not in the upload request.
 */
export async function inflatedSizeProblem(path: string, limits: ExpansionLimits): Promise<string | null> {
  const MB = 1048576;
  const { default: unzipper } = await import('unzipper'); // loaded when an xlsx is imported, not at start
  const source = fs.createReadStream(path);
  const zip = source.pipe(unzipper.Parse({ forceStream: true }));
  let total = 0;
  try {
    for await (const entry of zip as AsyncIterable<NodeJS.ReadableStream & { path: string }>) {
      const cap = /sharedStrings\.xml$/i.test(entry.path) ? limits.sharedStringsBytes : Infinity;
      let size = 0;
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        size += chunk.length;
        total += chunk.length;
        if (size > cap)
          return `The workbook's shared strings expand to more than the ${Math.round(cap / MB)} MB allowed.`;
        if (total > limits.totalBytes)
          return `The workbook expands to more than the ${Math.round(limits.totalBytes / MB)} MB allowed.`;
      }
    }
    return null;
  } catch {
    return 'The file is not a readable xlsx workbook.';
  } finally {
    source.destroy();
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

/** Rows handed over at once, at most: a row costs no promise of its own, and a chunk holds little memory. */
const CHUNK = 500;

/** The CSV's records in chunks, taken from the parser synchronously while it has them. */
async function* csvChunks(path: string): AsyncGenerator<string[][]> {
  const file = fs.createReadStream(path);
  const parser = file.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: true }));
  let ended = false;
  let failed: Error | null = null;
  let wake: (() => void) | null = null;
  const settle = () => wake?.();
  parser.on('readable', settle);
  parser.once('end', () => ((ended = true), settle()));
  parser.once('error', (err) => ((failed = err), settle()));
  try {
    for (;;) {
      const chunk: string[][] = [];
      for (let record; chunk.length < CHUNK && (record = parser.read()) !== null;) chunk.push(record);
      if (chunk.length) yield chunk;
      else if (failed) throw failed;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    parser.destroy();
    file.destroy();
  }
}

/** The first sheet's non-empty rows in chunks, as the reader parses them (its row iterator costs a promise a row). */
async function* xlsxChunks(path: string): AsyncGenerator<string[][]> {
  const reader = new (await loadExcelJS()).stream.xlsx.WorkbookReader(path, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  for await (const sheet of reader) {
    // parse() yields the events of each parsed piece of the sheet together (typed as an iterator, it is a generator)
    const events = sheet.parse() as unknown as AsyncIterable<{ eventType: string; value: unknown }[]>;
    for await (const batch of events) {
      const chunk: string[][] = [];
      for (const { eventType, value } of batch) {
        if (eventType !== 'row') continue;
        // row.values is sparse (no entry for an empty cell); Array.from visits the gaps too.
        const values = Array.from((value as ExcelJS.Row).values as unknown[], cellText).slice(1);
        if (values.some((v) => v !== '')) chunk.push(values);
      }
      if (chunk.length) yield chunk;
    }
    return;
  }
}

/**
 * Streams the rows of the first sheet (or the CSV) as arrays of strings, a chunk at a time; memory stays flat
 * whatever the size.
 */
export function readRowChunks(path: string, type: SheetType): AsyncGenerator<string[][]> {
  return type === 'csv' ? csvChunks(path) : xlsxChunks(path);
}
