import type { Core } from '../context.js';
import { unescapeCell } from '../formula-cells.js';
import type { BadRow } from '../import-runs.js';
import { inflatedSizeProblem, readRowChunks } from '../spreadsheet.js';
import { expansionLimits } from '../uploads.js';
import { isFitText } from '../validation.js';
import { productsBySku, warehousesOf, type WarehouseView } from './stock.views.js';

// A stock count file read and checked (stock-count.ts writes it): the columns sku, quantity and warehouse, every row
// an active product of the account, one of its warehouses, a whole count, counted once.

/** Rows a count file may hold (a count is one row per product and warehouse). */
export const STOCK_COUNT_MAX_ROWS = 50_000;
const QUANTITY_MAX = 10_000_000;
/** The longest cell a count row needs (a sku); a longer one is refused. */
const CELL_MAX = 100;
/** What a cell far over CELL_MAX is kept as: one shared string no check passes (it is not fit text). */
const TOO_LONG = '\u0000';

/** A data row as read: its file row and cells by column. */
interface CountRow {
  row: number;
  sku: string;
  warehouse: string;
  quantity: string;
}
/** A row that passed: the product and warehouse it counts and the units counted. */
export interface Counted {
  row: number;
  productId: number;
  sku: string;
  warehouseId: number;
  counted: number;
}

/** The columns' positions, from the header (any case, any order; others ignored); null names the missing one. */
function headerOf(cells: string[]): { sku: number; warehouse?: number; quantity: number } | { missing: string } {
  const at = (name: string) => {
    const i = cells.findIndex(
      (c) =>
        String(c ?? '')
          .trim()
          .toLowerCase() === name,
    );
    return i < 0 ? undefined : i;
  };
  const sku = at('sku');
  const quantity = at('quantity');
  if (sku === undefined || quantity === undefined)
    return { missing: `The file has no ${sku === undefined ? 'sku' : 'quantity'} column (sku, warehouse, quantity).` };
  return { sku, warehouse: at('warehouse'), quantity };
}

/** Reads the whole file (a count is small: STOCK_COUNT_MAX_ROWS at most); a string says why it cannot be read. */
export async function readCount(core: Core, path: string, type: 'xlsx' | 'csv'): Promise<CountRow[] | string> {
  const inflated = type === 'xlsx' ? await inflatedSizeProblem(path, expansionLimits(core.config)) : null;
  if (inflated) return inflated;
  let header: ReturnType<typeof headerOf> | null = null;
  const rows: CountRow[] = [];
  let rowNo = 0;
  // a cell longer than any sku, code or count is kept as one shared marker, never as itself: 50,000 rows of a long
  // shared string would otherwise hold gigabytes (the upload's byte limit bounds the file, not what it expands to)
  const cell = (cells: string[], i: number | undefined) => {
    if (i === undefined) return '';
    const text = String(cells[i] ?? '');
    const kept = unescapeCell(text.trim());
    // a copy, not a slice: V8's sliced strings keep the whole cell alive
    return text.length > CELL_MAX * 4
      ? TOO_LONG
      : kept.length > CELL_MAX
        ? Buffer.from(kept.slice(0, CELL_MAX + 1)).toString()
        : kept;
  };
  for await (const chunk of readRowChunks(path, type))
    for (const cells of chunk) {
      rowNo += 1;
      if (!header) {
        header = headerOf(cells);
        if ('missing' in header) return header.missing;
        continue;
      }
      if (cells.every((c) => String(c ?? '').trim() === '')) continue;
      if (rows.length >= STOCK_COUNT_MAX_ROWS) return `The file has more than ${STOCK_COUNT_MAX_ROWS} rows.`;
      const h = header;
      rows.push({
        row: rowNo,
        sku: cell(cells, h.sku),
        warehouse: cell(cells, h.warehouse),
        quantity: cell(cells, h.quantity),
      });
    }
  return header ? rows : 'The file is empty.';
}

/** Each row checked: an active product of the account, one of its warehouses, a whole count, counted once. */
export async function checkRows(core: Core, accountId: number, rows: CountRow[]) {
  const { sequelize } = core.db;
  const warehouses = await warehousesOf(sequelize, accountId);
  const fit = (s: string) => s.length > 0 && s.length <= 100 && isFitText(s);
  const products = await productsBySku(sequelize, accountId, [...new Set(rows.map((r) => r.sku).filter(fit))]);
  const seen = new Map<string, number>();
  const good: Counted[] = [];
  const bad: BadRow[] = [];
  for (const r of rows) {
    const problems = rowProblems(r, products.get(r.sku.toLowerCase()), placeOf(warehouses, r.warehouse), seen);
    if (problems.length) bad.push(...problems.map(([column, message]) => ({ row: r.row, column, message })));
    else {
      const product = products.get(r.sku.toLowerCase())!;
      const warehouse = placeOf(warehouses, r.warehouse)!;
      good.push({
        row: r.row,
        productId: product.id,
        sku: product.sku,
        warehouseId: warehouse.id,
        counted: Number(r.quantity),
      });
    }
  }
  return { good, bad };
}

const placeOf = (warehouses: WarehouseView[], code: string) =>
  code ? warehouses.find((w) => w.code === code.toUpperCase()) : warehouses.find((w) => w.is_default);

/** What is wrong with one row, as [column, message] pairs (nothing: it counts). */
function rowProblems(
  r: CountRow,
  product: { id: number; sku: string } | undefined,
  warehouse: WarehouseView | undefined,
  seen: Map<string, number>,
): [string, string][] {
  const problems: [string, string][] = [];
  const shown = (s: string) => (isFitText(s) ? s.slice(0, 100) : 'this value');
  if (!r.sku) problems.push(['sku', 'The sku field is required.']);
  else if (!product) problems.push(['sku', `The sku ${shown(r.sku)} is not an active product of the account.`]);
  if (!warehouse) problems.push(['warehouse', `The warehouse ${shown(r.warehouse)} is not one of the account's.`]);
  if (!/^\d{1,8}$/.test(r.quantity) || Number(r.quantity) > QUANTITY_MAX)
    problems.push([
      'quantity',
      `The quantity must be a whole number from 0 to ${QUANTITY_MAX} (read: ${shown(r.quantity) || 'nothing'}).`,
    ]);
  if (product && warehouse && !problems.length) {
    const key = `${product.id} ${warehouse.id}`;
    const first = seen.get(key);
    if (first) problems.push(['sku', `${product.sku} in ${warehouse.code} is counted twice (first on row ${first}).`]);
    else seen.set(key, r.row);
  }
  return problems;
}
