import type { Sequelize } from 'sequelize';
import { paged, select } from '../query.js';
import { fromCents } from '../money.js';
import { OUTCOMES } from './cash.schemas.js';

// What the cash routes show (docs/cash.md): amounts in the account's currency units, from the cents kept.

interface RemittanceRow {
  id: number;
  account_id: number;
  shipping_company: string;
  statement_number: string;
  paid_at: string;
  line_count: number;
  amount: number;
  fees: number;
  outcomes: Record<string, number>;
  changed_by: string;
  created_at: Date | string;
}

const REMITTANCE_COLUMNS = `r.id, r.account_id, c.code AS shipping_company, r.statement_number,
  to_char(r.paid_at, 'YYYY-MM-DD') AS paid_at, r.lines AS line_count, r.amount, r.fees, r.outcomes, r.changed_by,
  r.created_at`;

const shown = (r: RemittanceRow) => ({
  ...r,
  id: Number(r.id),
  amount: fromCents(r.amount),
  fees: fromCents(r.fees),
  outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, r.outcomes[o] ?? 0])),
  created_at: new Date(r.created_at).toISOString(),
});

/** One statement (of the account when `accountId` is given), with its lines when asked; null when there is none. */
export async function remittanceView(sequelize: Sequelize, id: number, withLines: boolean, accountId?: number) {
  const [r] = await select<RemittanceRow>(
    sequelize,
    `SELECT ${REMITTANCE_COLUMNS} FROM remittances r JOIN shipping_companies c ON c.id = r.shipping_company_id
      WHERE r.id = $1 AND ($2::int IS NULL OR r.account_id = $2)`,
    [id, accountId ?? null],
  );
  if (!r) return null;
  if (!withLines) return shown(r);
  const lines = await select<Record<string, unknown>>(
    sequelize,
    `SELECT l.line, l.reference, l.tracking_number, l.amount, l.fees, l.expected, l.outcome,
            o.reference AS order_reference
       FROM remittance_lines l LEFT JOIN orders o ON o.id = l.order_id
      WHERE l.remittance_id = $1 ORDER BY l.line`,
    [id],
  );
  return {
    ...shown(r),
    lines: lines.map((l) => ({
      ...l,
      amount: fromCents(l.amount as number),
      fees: fromCents(l.fees as number | null),
      expected: fromCents(l.expected as number | null),
    })),
  };
}

/** The account's statements, newest first. */
export async function remittancesPage(sequelize: Sequelize, q: { accountId?: number; page: number; per_page: number }) {
  const { rows, total } = await paged<RemittanceRow>(
    sequelize,
    {
      columns: REMITTANCE_COLUMNS,
      from: `FROM remittances r JOIN shipping_companies c ON c.id = r.shipping_company_id
            WHERE ($1::int IS NULL OR r.account_id = $1)`,
      order: 'r.id DESC',
    },
    [q.accountId ?? null],
    q.page,
    q.per_page,
  );
  return { rows: rows.map(shown), total };
}

/** The ages of outstanding cash, in whole days since delivery. */
export const AGES = [
  { key: '0_7', from: 0, to: 7 },
  { key: '8_14', from: 8, to: 14 },
  { key: '15_30', from: 15, to: 30 },
  { key: 'over_30', from: 31, to: null },
] as const;

const sums = (where: string, i: number) =>
  `count(*) FILTER (WHERE ${where})::int AS n${i}, coalesce(sum(net) FILTER (WHERE ${where}), 0)::bigint AS a${i}`;

/**
 * Cash outstanding per carrier: the orders to collect and their expected net, by age since delivery, those overdue
 * (not remitted within the carrier's `remit_within_days`), and the disputed ones. Orders delivered without a carrier
 * are under `shipping_company: null`.
 */
export async function outstanding(sequelize: Sequelize, accountId?: number) {
  const ages = AGES.map((a) => `to_collect AND age >= ${a.from}${a.to === null ? '' : ` AND age <= ${a.to}`}`);
  const columns = ['to_collect', 'overdue', 'NOT to_collect', ...ages].map((where, i) => sums(where, i));
  const rows = await select<Record<string, unknown>>(
    sequelize,
    `SELECT code, name, ${columns.join(', ')}
       FROM (SELECT c.code, c.name, c.id AS company, o.payment_status = 'to_collect' AS to_collect,
                    o.cod_amount - coalesce(o.delivery_fee, 0) - coalesce(o.cod_commission, 0) AS net,
                    floor(extract(epoch FROM now() - o.delivered_at) / 86400)::int AS age,
                    o.payment_status = 'to_collect'
                      AND o.delivered_at < now() - make_interval(days => coalesce(c.remit_within_days, 14)) AS overdue
               FROM orders o LEFT JOIN shipping_companies c ON c.id = o.shipping_company_id
              WHERE ($1::int IS NULL OR o.account_id = $1) AND o.payment_status IN ('to_collect', 'disputed')) x
      GROUP BY company, code, name ORDER BY code NULLS LAST`,
    [accountId ?? null],
  );
  const pair = (r: Record<string, unknown>, i: number) => ({
    orders: Number(r[`n${i}`]),
    amount: fromCents(r[`a${i}`] as number),
  });
  return rows.map((r) => ({
    shipping_company: r.code === null ? null : { code: r.code, name: r.name },
    to_collect: pair(r, 0),
    overdue: pair(r, 1),
    disputed: pair(r, 2),
    ages: Object.fromEntries(AGES.map((a, i) => [a.key, pair(r, 3 + i)])),
  }));
}
