import type ExcelJS from 'exceljs';

let loaded: Promise<typeof ExcelJS> | null = null;

/**
 * exceljs, loaded the first time an xlsx is read or written: at start it cost every process ≈ 175 ms of CPU
 * (docs/performance.md, Start-up), though only import and export jobs use it.
 */
export function loadExcelJS(): Promise<typeof ExcelJS> {
  return (loaded ??= import('exceljs').then((m) => m.default));
}
