/**
 * Spreadsheet formula injection, one rule for every file the service writes or reads back (exports, import error
 * reports, the SQL of lead exports).
 */
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
