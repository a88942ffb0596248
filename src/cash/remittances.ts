import type { Sequelize, Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import { newRowAccount } from '../chosen-account.js';
import type { Core } from '../context.js';
import { ValidationError } from '../errors.js';
import { authorize, namedAccountScope } from '../policy.js';
import { select } from '../query.js';
import { validate } from '../validation.js';
import { toCents } from '../money.js';
import { remittanceBodySchema, type Outcome, type RemittanceInput } from './cash.schemas.js';
import { remittanceView } from './cash.views.js';

// A carrier's remittance statement (docs/cash.md, "Statements"): each line is matched to one of the account's orders
// of that carrier, by reference or tracking number, and gets an outcome; the orders it pays are remitted, the ones it
// pays wrongly disputed. The same statement number of the same carrier again changes nothing and answers the first.

interface Found {
  line: number;
  order_id: number | null;
}
interface Held {
  id: number;
  status: string;
  payment_status: string;
  expected: number | null;
}

/** Each line's order of the account and carrier (by reference first, else by tracking number), or null. */
const findOrders = (sequelize: Sequelize, t: Transaction, accountId: number, companyId: number, v: RemittanceInput) =>
  select<Found>(
    sequelize,
    `SELECT l.line::int AS line, coalesce(r.id, t.id) AS order_id
       FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS l(reference, tracking_number, line)
       LEFT JOIN LATERAL (
         SELECT o.id FROM orders o
          WHERE o.account_id = $1 AND o.reference = upper(l.reference) AND o.shipping_company_id = $2) r ON true
       LEFT JOIN LATERAL (
         SELECT o.id FROM orders o
          WHERE o.account_id = $1 AND o.tracking_number = l.tracking_number AND o.shipping_company_id = $2
          ORDER BY o.id LIMIT 1) t ON true
      ORDER BY l.line`,
    [
      accountId,
      companyId,
      v.lines.map((l) => l.reference ?? null),
      v.lines.map((l) => (l.reference ? null : (l.tracking_number ?? null))),
    ],
    t,
  );

/** The orders a statement names, locked in id order: two statements naming one order apply one after the other. */
const holdOrders = (sequelize: Sequelize, t: Transaction, ids: number[]) =>
  select<Held>(
    sequelize,
    `SELECT id, status, payment_status, cod_amount - coalesce(delivery_fee, 0) - coalesce(cod_commission, 0) AS expected
       FROM orders WHERE id = ANY ($1::bigint[]) ORDER BY id FOR UPDATE`,
    [ids],
    t,
  );

/** The outcome of each line, in order: a line naming an order an earlier line remitted is `already_remitted`. */
function outcomes(v: RemittanceInput, found: Found[], held: Map<number, Held>) {
  const remitted = new Set<number>();
  return v.lines.map((l, i) => {
    const order = found[i].order_id === null ? undefined : held.get(Number(found[i].order_id));
    const amount = toCents(l.amount);
    let outcome: Outcome;
    if (!order) outcome = 'unknown_order';
    else if (order.payment_status === 'remitted' || remitted.has(order.id)) outcome = 'already_remitted';
    else if (order.status !== 'delivered' || order.payment_status === 'none') outcome = 'not_delivered';
    else if (amount === Number(order.expected)) outcome = 'matched';
    else outcome = amount < Number(order.expected) ? 'short' : 'over';
    if (order && outcome === 'matched') remitted.add(order.id);
    return { order, amount, outcome };
  });
}

/** Writes the lines and the orders' new payment status, and the statement's totals. */
async function writeLines(
  sequelize: Sequelize,
  t: Transaction,
  r: { id: number; accountId: number },
  v: RemittanceInput,
  results: ReturnType<typeof outcomes>,
) {
  const col = <T>(f: (i: number) => T) => v.lines.map((_, i) => f(i));
  await select(
    sequelize,
    `INSERT INTO remittance_lines (remittance_id, account_id, line, reference, tracking_number, amount, fees, order_id,
                                   expected, outcome)
     SELECT $1, $2, l.* FROM unnest($3::int[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[],
                                    $9::bigint[], $10::text[]) AS l`,
    [
      r.id,
      r.accountId,
      col((i) => i + 1),
      col((i) => v.lines[i].reference?.toUpperCase() ?? null),
      col((i) => v.lines[i].tracking_number ?? null),
      col((i) => results[i].amount),
      col((i) => (v.lines[i].fees === undefined ? null : toCents(v.lines[i].fees!))),
      col((i) => results[i].order?.id ?? null),
      col((i) => (results[i].order ? Number(results[i].order!.expected) : null)),
      col((i) => results[i].outcome),
    ],
    t,
  );
  const status = new Map<number, 'remitted' | 'disputed'>();
  for (const x of results)
    if (x.order && ['matched', 'short', 'over'].includes(x.outcome) && status.get(x.order.id) !== 'remitted')
      status.set(x.order.id, x.outcome === 'matched' ? 'remitted' : 'disputed');
  await select(
    sequelize,
    `UPDATE orders o SET payment_status = v.status, updated_at = now(),
            remittance_id = CASE WHEN v.status = 'remitted' THEN $3 ELSE o.remittance_id END
       FROM unnest($1::bigint[], $2::text[]) AS v(id, status) WHERE o.id = v.id`,
    [[...status.keys()], [...status.values()], r.id],
    t,
  );
  const counts = Object.fromEntries(results.reduce((m, x) => m.set(x.outcome, (m.get(x.outcome) ?? 0) + 1), new Map()));
  await select(
    sequelize,
    `UPDATE remittances SET lines = $2, amount = $3, fees = $4, outcomes = $5 WHERE id = $1`,
    [
      r.id,
      v.lines.length,
      results.reduce((s, x) => s + x.amount, 0),
      v.lines.reduce((s, l) => s + toCents(l.fees ?? 0), 0),
      JSON.stringify(counts),
    ],
    t,
  );
}

/**
 * Records a statement (1 to 5,000 lines) for the account's carrier `shipping_company` (its code), atomically. Answers
 * the statement with its lines; the same carrier and statement number again answers the first one, unchanged.
 */
export async function recordRemittance(core: Core, actor: Actor, body: unknown) {
  authorize(actor, 'create', 'cash');
  const v = validate<RemittanceInput>(remittanceBodySchema, body);
  if (v.account_id !== undefined) namedAccountScope(actor, v.account_id);
  const { sequelize } = core.db;
  const accountId = await newRowAccount(sequelize, actor, v.account_id);
  authorize(actor, 'create', 'cash', { account_id: accountId });
  const company = await core.models.ShippingCompany.findOne({
    where: { account_id: accountId, code: v.shipping_company },
  });
  if (!company)
    throw ValidationError.single(
      'shipping_company',
      `The shipping company ${v.shipping_company} is not one of the account's.`,
    );
  const id = await sequelize.transaction(async (t) => {
    const [made] = await select<{ id: number }>(
      sequelize,
      `INSERT INTO remittances (account_id, shipping_company_id, statement_number, paid_at, lines, amount, fees,
                                outcomes, changed_by, user_id)
       VALUES ($1, $2, $3, $4, 0, 0, 0, '{}', $5, $6)
       ON CONFLICT (shipping_company_id, statement_number) DO NOTHING RETURNING id`,
      [accountId, company.id, v.statement_number, v.paid_at, actor.name, actorUserId(actor)],
      t,
    );
    if (!made) return null;
    const found = await findOrders(sequelize, t, accountId, company.id, v);
    const ids = [...new Set(found.map((f) => f.order_id).filter((x): x is number => x !== null))].map(Number);
    const held = new Map((await holdOrders(sequelize, t, ids)).map((o) => [Number(o.id), o]));
    await writeLines(sequelize, t, { id: made.id, accountId }, v, outcomes(v, found, held));
    return Number(made.id);
  });
  const [first] = id
    ? [{ id }]
    : await select<{ id: number }>(
        sequelize,
        'SELECT id FROM remittances WHERE shipping_company_id = $1 AND statement_number = $2',
        [company.id, v.statement_number],
      );
  return { replayed: id === null, remittance: await remittanceView(sequelize, Number(first.id), true) };
}
