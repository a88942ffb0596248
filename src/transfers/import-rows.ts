import { lineDefaults, type Catalogue } from '../leads/lead.check.js';
import { unescapeCell } from '../formula-cells.js';

/** Columns the export writes that describe a lead's state rather than the lead to create; import ignores them. */
const IGNORED = new Set([
  'reference',
  'status',
  'total',
  'created_at',
  'updated_at',
  'action_date',
  'order_reference',
  'time_zone',
]);
const FIELDS = ['phone', 'sku', 'full_name', 'city', 'area', 'address', 'quantity', 'price', 'products', 'data'];

type Line = { sku: string; quantity: number; price: number };
/**
 * The export's `products` cell ("SKU-1 x2 @ 150; SKU-2 x1 @ 99.5") as product lines, or null unless the whole cell
 * reads back that way.
 */
export function parseProducts(cell: string): Line[] | null {
  if (!cell) return null;
  const item = /(.+?) x(\d+) @ (\d+(?:\.\d+)?)(?:; |$)/y;
  const lines: Line[] = [];
  for (let m; item.lastIndex < cell.length && (m = item.exec(cell));)
    lines.push({ sku: m[1], quantity: Number(m[2]), price: Number(m[3]) });
  return lines.length && item.lastIndex === cell.length ? lines : null;
}

/** The cell of column `i` (none: empty), trimmed and unescaped. */
const cellAt = (row: string[], i: number | undefined) =>
  i === undefined ? '' : unescapeCell(String(row[i] ?? '').trim());

/** The `data` cell (JSON pairs, as exported; anything else is kept as one pair) and the other named columns. */
function dataOf(rawData: string, extra: [string, number][], row: string[]) {
  let data: { key: string; value: string }[] = [];
  if (rawData) {
    try {
      const parsed = JSON.parse(rawData);
      if (Array.isArray(parsed)) data = parsed;
    } catch {
      data.push({ key: 'data', value: rawData });
    }
  }
  for (const [key, i] of extra) {
    const value = cellAt(row, i);
    if (value) data.push({ key, value });
  }
  return data;
}

/**
 * The file-row → field mapping of one data row (header matched case-insensitively). Runs for every row of a file:
 * each cell is read once and no function is made per row.
 */
export function toItem({ fields, extra }: ImportHeader, row: string[], catalogue: Catalogue) {
  const sku = cellAt(row, fields.get('sku'));
  const phone = cellAt(row, fields.get('phone'));
  const quantity = cellAt(row, fields.get('quantity'));
  const price = cellAt(row, fields.get('price'));
  const data = dataOf(cellAt(row, fields.get('data')), extra, row);
  // the defaults of every entry point (lineDefaults): quantity 1, the catalogue price
  const first = lineDefaults(
    { sku, quantity: quantity === '' ? undefined : Number(quantity), price: price === '' ? undefined : Number(price) },
    catalogue,
  );
  // A lead exported with several products lists them all in `products` and repeats the first in sku/quantity/price;
  // the list is taken only while that first entry still matches (an edited sku, quantity or price wins alone).
  const listed = parseProducts(cellAt(row, fields.get('products')));
  const same =
    listed && listed[0].sku === first.sku && listed[0].quantity === first.quantity && listed[0].price === first.price;
  const item: Record<string, unknown> = {
    phone,
    full_name: cellAt(row, fields.get('full_name')) || phone,
    products: same ? listed : [first],
  };
  const city = cellAt(row, fields.get('city'));
  const area = cellAt(row, fields.get('area'));
  const address = cellAt(row, fields.get('address'));
  if (city) item.city = city;
  if (area) item.area = area;
  if (address) item.address = address;
  if (data.length) item.data = data;
  return item;
}

/** The spreadsheet column an error path (`rows.3.products.0.sku`) points at. */
export function columnOf(field: string): string {
  const f = field.replace(/^rows\.\d+\.?/, '');
  if (f.startsWith('products.0.')) return f.split('.').pop()!;
  if (f.startsWith('products')) return 'products';
  return f.split('.')[0] || 'row';
}

/** The columns of a file's first row: known fields by name, up to 100 other named columns kept as `data`. */
export interface ImportHeader {
  fields: Map<string, number>;
  extra: [string, number][];
}

/** The header row, or the message that fails the run when a required column is missing. */
export function readHeader(cells: string[]): ImportHeader | { missing: string } {
  const names = cells.map((c) => String(c).trim().toLowerCase());
  for (const required of ['phone', 'sku']) {
    if (!names.includes(required))
      return {
        missing:
          `The file has no ${required} column ` + '(the first row must name the columns; phone and sku are required).',
      };
  }
  const fields = new Map(
    names
      .map((n, i) => [n, i] as [string, number])
      .filter(([n]) => FIELDS.includes(n))
      .reverse(),
  );
  const extra = cells
    .map((c, i) => [String(c).trim(), i] as [string, number])
    .filter(([n]) => n && !FIELDS.includes(n.toLowerCase()) && !IGNORED.has(n.toLowerCase()))
    .slice(0, 100);
  return { fields, extra };
}
