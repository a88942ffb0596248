import type { Sequelize } from 'sequelize';
import { readQuery } from '../db/index.js';
import { paged, select } from '../query.js';
import type { MovementKind } from './stock.schemas.js';

// The reads of stock (docs/stock.md): levels, the ledger, warehouses and products, each in one account (an admin's
// may span every account), newest or alphabetical first. A product's level in a warehouse it never had stock in is 0.

export interface WarehouseView {
  id: number;
  account_id: number;
  code: string;
  name: string;
  is_default: boolean;
  created_at: string;
}

export interface LevelView {
  account_id: number;
  sku: string;
  name: string;
  warehouse: string;
  on_hand: number;
  reserved: number;
  available: number;
  low_stock_threshold: number;
  low: boolean;
}

export interface MovementView {
  id: number;
  account_id: number;
  sku: string;
  warehouse: string;
  kind: MovementKind;
  quantity: number;
  order_reference: string | null;
  reason: string | null;
  changed_by: string;
  created_at: string;
}

export interface ProductStockView {
  account_id: number;
  sku: string;
  name: string;
  price: number;
  low_stock_threshold: number;
  on_hand: number;
  reserved: number;
  available: number;
  low: boolean;
}

export async function warehousesOf(sequelize: Sequelize, accountId: number | undefined): Promise<WarehouseView[]> {
  const rows = await select<WarehouseView>(
    sequelize,
    `SELECT id, account_id, code, name, is_default, created_at FROM warehouses
      WHERE ($1::int IS NULL OR account_id = $1) ORDER BY account_id, NOT is_default, code`,
    [accountId ?? null],
  );
  return rows.map((w) => ({ ...w, created_at: new Date(w.created_at).toISOString() }));
}

/** The account's active products of `skus`, by lower-case sku. */
export async function productsBySku(sequelize: Sequelize, accountId: number, skus: string[]) {
  const rows = await select<{ id: number; sku: string }>(
    sequelize,
    'SELECT id, sku FROM products WHERE account_id = $1 AND active AND lower(sku) = ANY ($2::text[])',
    [accountId, skus.map((s) => s.toLowerCase())],
  );
  return new Map(rows.map((r) => [r.sku.toLowerCase(), r]));
}

const AVAILABLE = '(coalesce(s.on_hand, 0) - coalesce(s.reserved, 0))';

const LEVEL_COLUMNS = `p.account_id, p.sku, p.name, w.code AS warehouse, coalesce(s.on_hand, 0) AS on_hand,
                coalesce(s.reserved, 0) AS reserved, ${AVAILABLE} AS available, p.low_stock_threshold,
                ${AVAILABLE} <= p.low_stock_threshold AS low`;
const PRODUCTS = `p.active AND ($1::int IS NULL OR p.account_id = $1)
                  AND ($2::text IS NULL OR lower(p.sku) = lower($2))`;
const WAREHOUSES = `($1::int IS NULL OR w.account_id = $1) AND ($3::text IS NULL OR w.code = $3)`;

/**
 * One account's page of levels: every product has a row in each of the account's warehouses, so the page's offset
 * in rows is an offset in products (offset ÷ warehouses, read along the products' (account_id, sku) index) and one
 * within the first product's rows: a deep page reads its own products, not every row before it.
 */
const ONE_ACCOUNT_TOTAL = `(CASE WHEN $2::text IS NULL
                              THEN coalesce((SELECT c.active FROM product_counts c WHERE c.account_id = $1), 0)
                              ELSE (SELECT count(*) FROM products p WHERE ${PRODUCTS}) END)
                             * (SELECT count(*) FROM warehouses w WHERE ${WAREHOUSES})`;
const ONE_ACCOUNT_PAGE = `
  WITH w AS (SELECT w.id, w.code FROM warehouses w WHERE ${WAREHOUSES}),
       n AS (SELECT greatest(count(*), 1)::int AS n FROM w),
       p AS (SELECT p.* FROM products p WHERE ${PRODUCTS} ORDER BY p.sku
              OFFSET $4::int / (SELECT n FROM n) LIMIT ($4::int % (SELECT n FROM n) + $5::int) / (SELECT n FROM n) + 1)
  SELECT ${LEVEL_COLUMNS}, (${ONE_ACCOUNT_TOTAL})::int AS total__
    FROM p JOIN w ON true
    LEFT JOIN stock_levels s ON s.account_id = p.account_id AND s.product_id = p.id AND s.warehouse_id = w.id
   ORDER BY p.sku, w.code OFFSET $4::int % (SELECT n FROM n) LIMIT $5`;

/**
 * The first page of one account, unfiltered (what the panel and most clients ask): its first products along the
 * index, each with its warehouses, in a statement with no optional filter, so that PostgreSQL can keep one plan for it
 * (readQuery's named statement): planning it cost more than running it (docs/performance.md, "GET /stock").
 */
const ONE_ACCOUNT_FIRST_PAGE = `
  SELECT ${LEVEL_COLUMNS},
         (coalesce((SELECT c.active FROM product_counts c WHERE c.account_id = $1), 0)
          * (SELECT count(*) FROM warehouses x WHERE x.account_id = $1))::int AS total__
    FROM (SELECT p.id, p.account_id, p.sku, p.name, p.low_stock_threshold FROM products p
           WHERE p.account_id = $1 AND p.active ORDER BY p.sku LIMIT $2) p
    JOIN warehouses w ON w.account_id = $1
    LEFT JOIN stock_levels s ON s.account_id = $1 AND s.product_id = p.id AND s.warehouse_id = w.id
   ORDER BY p.sku, w.code LIMIT $2`;

/**
 * Levels of the account's active products in each of its warehouses, by sku then warehouse (low ones on request).
 * Unless low ones are asked for, a page reads only its own rows in the order of the products' (account_id, sku) index,
 * and its total is active products × warehouses, the products' count kept per account (product_counts): a page costs
 * the same at 10,000 products as at 10 (docs/performance.md, "GET /stock"). Low ones need every level's available, so
 * they are counted together.
 */
export async function levelsPage(
  sequelize: Sequelize,
  q: { accountId?: number; sku?: string; warehouse?: string; low?: boolean; page: number; per_page: number },
  lowFirst = false,
) {
  const from = `FROM products p JOIN warehouses w ON w.account_id = p.account_id
             LEFT JOIN stock_levels s ON s.account_id = p.account_id AND s.product_id = p.id AND s.warehouse_id = w.id
            WHERE ${PRODUCTS} AND ${WAREHOUSES}`;
  const bind = [q.accountId ?? null, q.sku || null, q.warehouse || null];
  if (q.low === true || lowFirst)
    return paged<LevelView>(
      sequelize,
      {
        columns: LEVEL_COLUMNS,
        from: `${from} AND (NOT $4::bool OR ${AVAILABLE} <= p.low_stock_threshold)`,
        order: `${lowFirst ? `${AVAILABLE} <= p.low_stock_threshold DESC, ` : ''}p.account_id, p.sku, w.code`,
      },
      [...bind, q.low === true],
      q.page,
      q.per_page,
    );
  const offset = (q.page - 1) * q.per_page;
  if (q.accountId !== undefined) {
    // one round trip: the page's rows, each with the total (an InitPlan, counted once); past the last page, the total
    const rows =
      offset === 0 && !q.sku && !q.warehouse
        ? await readQuery<LevelView & { total__: number }>(
            sequelize,
            ONE_ACCOUNT_FIRST_PAGE,
            [q.accountId, q.per_page],
            'stock-first-page',
          )
        : await select<LevelView & { total__: number }>(sequelize, ONE_ACCOUNT_PAGE, [...bind, offset, q.per_page]);
    if (rows.length) return { rows: rows.map(({ total__: _t, ...r }) => r as LevelView), total: rows[0].total__ };
    const [{ total }] = await select<{ total: number }>(sequelize, `SELECT (${ONE_ACCOUNT_TOTAL})::int AS total`, bind);
    return { rows: [], total };
  }
  const [rows, [{ total }]] = await Promise.all([
    select<LevelView>(
      sequelize,
      `SELECT ${LEVEL_COLUMNS} ${from} ORDER BY p.account_id, p.sku, w.code OFFSET $4 LIMIT $5`,
      [...bind, offset, q.per_page],
    ),
    select<{ total: number }>(
      sequelize,
      `SELECT coalesce(sum(pc * wc), 0)::int AS total
         FROM (SELECT p.account_id, count(*) AS pc FROM products p WHERE ${PRODUCTS} GROUP BY p.account_id) pp
         JOIN (SELECT w.account_id, count(*) AS wc FROM warehouses w WHERE ${WAREHOUSES} GROUP BY w.account_id) ww
           USING (account_id)`,
      bind,
    ),
  ]);
  return { rows, total };
}

/** The ledger, newest first. */
export async function movementsPage(
  sequelize: Sequelize,
  q: {
    accountId?: number;
    sku?: string;
    warehouse?: string;
    kind?: string;
    order_reference?: string;
    since?: Date;
    page: number;
    per_page: number;
  },
) {
  const { rows, total } = await paged<MovementView>(
    sequelize,
    {
      columns: `m.id, m.account_id, m.sku, w.code AS warehouse, m.kind, m.quantity, m.order_reference, m.reason,
                m.changed_by, m.created_at`,
      from: `FROM stock_movements m JOIN warehouses w ON w.id = m.warehouse_id
            WHERE ($1::int IS NULL OR m.account_id = $1) AND ($2::text IS NULL OR lower(m.sku) = lower($2))
              AND ($3::text IS NULL OR w.code = $3) AND ($4::text IS NULL OR m.kind = $4)
              AND ($5::text IS NULL OR m.order_reference = upper($5))
              AND ($6::timestamptz IS NULL OR m.created_at >= $6)`,
      order: 'm.id DESC',
    },
    [
      q.accountId ?? null,
      q.sku || null,
      q.warehouse || null,
      q.kind ?? null,
      q.order_reference || null,
      q.since?.toISOString() ?? null,
    ],
    q.page,
    q.per_page,
  );
  return { rows: rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() })), total };
}

/** The account's active products with their stock over every warehouse and their threshold, by sku. */
export async function productsPage(
  sequelize: Sequelize,
  q: { accountId?: number; sku?: string; page: number; per_page: number },
) {
  const { rows, total } = await paged<ProductStockView>(
    sequelize,
    {
      columns: `p.account_id, p.sku, p.name, p.price, p.low_stock_threshold,
                coalesce(sum(s.on_hand), 0)::int AS on_hand, coalesce(sum(s.reserved), 0)::int AS reserved,
                coalesce(sum(s.on_hand - s.reserved), 0)::int AS available,
                coalesce(sum(s.on_hand - s.reserved), 0) <= p.low_stock_threshold AS low`,
      from: `FROM products p LEFT JOIN stock_levels s ON s.account_id = p.account_id AND s.product_id = p.id
            WHERE ($1::int IS NULL OR p.account_id = $1) AND p.active
              AND ($2::text IS NULL OR lower(p.sku) = lower($2))
            GROUP BY p.id`,
      order: 'p.account_id, p.sku',
    },
    [q.accountId ?? null, q.sku || null],
    q.page,
    q.per_page,
  );
  return { rows: rows.map((r) => ({ ...r, price: Number(r.price) })), total };
}

/**
 * Units available of `skus` (lower case) in one warehouse of the account: the order's own when `orderId` names an
 * order that has one, else the account's default. A sku no active product has is left out.
 */
export async function availableOf(
  sequelize: Sequelize,
  accountId: number,
  skus: string[],
  orderId?: number,
): Promise<Map<string, number>> {
  const rows = await select<{ sku: string; available: number }>(
    sequelize,
    `SELECT lower(p.sku) AS sku, coalesce(s.on_hand - s.reserved, 0) AS available
       FROM products p
       JOIN warehouses w ON w.account_id = p.account_id
        AND w.id = coalesce((SELECT o.warehouse_id FROM orders o WHERE o.id = $3 AND o.account_id = $1),
                            (SELECT d.id FROM warehouses d WHERE d.account_id = $1 AND d.is_default))
       LEFT JOIN stock_levels s ON s.account_id = p.account_id AND s.product_id = p.id AND s.warehouse_id = w.id
      WHERE p.account_id = $1 AND lower(p.sku) = ANY ($2::text[])`,
    [accountId, skus, orderId ?? null],
  );
  return new Map(rows.map((r) => [r.sku, r.available]));
}
