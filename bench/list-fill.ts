import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { systemActor } from '../src/actor.js';
import type { AppContext } from '../app/context.js';

/**
 * One account with `total` leads, `total` orders (one per lead) and `total` rows in each history, written in SQL
 * (generate_series, one statement per 100,000 leads: the leads, their history, their orders and the orders' history in
 * data-modifying CTEs), so a million of each takes a minute or two instead of the API's hours. The row_counts triggers
 * run as for any insert, so the kept totals match. An account filled by an earlier run is reused when its kept counts
 * say it is complete. Names, phones, cities and statuses are spread like a real shop's (a few very common first
 * names, a quarter of the leads in one city, random phone digits), so searches hit sparse and dense terms.
 */
const FIRST = `ARRAY['Mohamed','Fatima','Amina','Youssef','Khadija','Ahmed','Sara','Omar','Hamza','Nadia','Mehdi',
  'Salma','Rachid','Imane','Anas','Hajar','Karim','Zineb','Adil','Meryem','Hicham','Laila','Said','Houda','Nabil',
  'Souad','Reda','Ilham','Tarik','Asmae']`;
const LAST_PREFIX = `ARRAY['Ben','El ','Al','Ait ','Bou','Ou']`;
const LAST = `ARRAY['ali','aoui','idrissi','tazi','berrada','fassi','chraibi','nani','amrani','sqalli','jamai',
  'kettani','lahlou','mernissi','naciri','omari','rachidi','saidi','tahiri','zaki']`;
const CITY = `ARRAY['Casablanca','Casablanca','Casablanca','Casablanca','Casablanca','Rabat','Rabat','Marrakech',
  'Marrakech','Fes','Fes','Tangier','Tangier','Agadir','Meknes','Oujda','Kenitra','Tetouan','Safi','Temara']`;
const LEAD_STATUS = `ARRAY['new','new','new','confirmed','wrong','call_later','no_answer','canceled','duplicate',
  'new']`;
const ORDER_STATUS = `ARRAY['new','pushed','shipped','delivered','returned','canceled','delivered','delivered']`;

/** $1 account, $2..$3 the range of `g`, $4 the total (the newest lead, g = total, is created now). */
const FILL = `
WITH l AS (
  INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, status, total, created_at,
                     updated_at)
  SELECT $1, 'LB' || lpad(g::text, 10, '0'), '+2126' || x.p, '2126' || x.p,
         (${FIRST})[1 + floor(30 * ((x.h1 % 10007) / 10007.0) ^ 2)::int] || ' ' ||
           (${LAST_PREFIX})[1 + x.h2 % 6] || (${LAST})[1 + (x.h2 / 6) % 20],
         (${CITY})[1 + x.h3 % 20], (${LEAD_STATUS})[1 + (x.h3 / 20) % 10], 360,
         now() - ($4::int - g) * interval '1 second', now() - ($4::int - g) * interval '1 second'
    FROM generate_series($2::int, $3::int) g,
         LATERAL (SELECT abs(hashint8(g)) AS h1, abs(hashint8(-g)) AS h2, abs(hashint8(g + 4000000000)) AS h3,
                         lpad((abs(hashint8(g + 8000000000)) % 100000000)::text, 8, '0') AS p) x
  RETURNING id, account_id, reference, phone, phone_normalized, full_name, city, total, created_at),
h AS (
  INSERT INTO lead_histories (account_id, lead_id, lead_reference, new_status, changed_by, changed_at)
  SELECT account_id, id, reference, 'new', 'Bench', created_at FROM l),
o AS (
  INSERT INTO orders (account_id, reference, lead_id, lead_reference, phone, phone_normalized, full_name, city, total,
                      status, tracking_number, created_at, updated_at)
  SELECT account_id, 'OB' || substr(reference, 3), id, reference, phone, phone_normalized, full_name, city, total,
         (${ORDER_STATUS})[1 + (id * 3) % 8],
         CASE WHEN (id * 3) % 8 IN (0, 5) THEN NULL ELSE 'TRK' || lpad(id::text, 10, '0') END, created_at, created_at
    FROM l
  RETURNING id, account_id, reference, created_at)
INSERT INTO order_histories (account_id, order_id, order_reference, new_status, changed_by, changed_at)
SELECT account_id, id, reference, 'new', 'Bench', created_at FROM o`;

const LISTS = ['leads', 'orders', 'lead_histories', 'order_histories'];

/** The kept totals of the account's four lists (row_counts). */
async function keptTotals(raw: pg.Client, accountId: number): Promise<number[]> {
  const { rows } = await raw.query<{ list: string; n: string }>(
    'SELECT list, sum(n) AS n FROM row_counts WHERE account_id = $1 GROUP BY list',
    [accountId],
  );
  return LISTS.map((list) => Number(rows.find((r) => r.list === list)?.n ?? 0));
}

export interface ListAccount {
  accountId: number;
  seller: { id: number; email: string };
  admin: { id: number; email: string };
}

/** A user of the account by email, made when missing. */
async function userOf(ctx: AppContext, raw: pg.Client, accountId: number, role: 'seller' | 'admin', email: string) {
  const { rows } = await raw.query<{ id: number }>('SELECT id FROM users WHERE lower(email) = $1', [email]);
  if (rows[0]) return { id: rows[0].id, email };
  const u = await ctx.services.accounts.createUser(systemActor(), {
    account_id: accountId,
    role,
    email,
    password: 'bench-password',
    name: `Bench ${role}`,
  });
  return { id: u.id, email };
}

/**
 * The account `Lists bench <total>` with its rows, filled now unless an earlier run left it complete; an incomplete
 * one (an interrupted fill) is renamed aside and a new one filled (deleting a million leads is not a bench's job).
 */
export async function listAccount(ctx: AppContext, raw: pg.Client, total: number): Promise<ListAccount> {
  const name = `Lists bench ${total}`;
  const found = await raw.query<{ id: number }>('SELECT id FROM accounts WHERE lower(name) = lower($1)', [name]);
  let accountId = found.rows[0]?.id;
  const complete = accountId && (await keptTotals(raw, accountId)).every((n) => n === total);
  if (accountId && !complete)
    await raw.query('UPDATE accounts SET name = $2 WHERE id = $1', [accountId, `${name} incomplete ${Date.now()}`]);
  const t0 = performance.now();
  if (!complete) {
    accountId = (await ctx.services.accounts.createAccount(systemActor(), { name })).id;
    for (let from = 1; from <= total; from += 100_000)
      await raw.query(FILL, [accountId, from, Math.min(total, from + 99_999), total]);
    process.stdout.write(
      `filled ${total} leads, orders and history rows of each in SQL: ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  } else process.stdout.write(`reusing account ${accountId} (${total} rows in each list, kept counts)\n`);
  // The state autovacuum reaches within a minute of a bulk load (the fill, or the POSTs before it): statistics,
  // visibility map, trigram pending lists merged (a search reads a GIN index's whole pending list), counts folded.
  const t1 = performance.now();
  await raw.query('SELECT fold_row_counts()');
  await raw.query(`VACUUM ANALYZE ${LISTS.join(', ')}, row_counts`);
  process.stdout.write(`VACUUM ANALYZE of the lists: ${((performance.now() - t1) / 1000).toFixed(1)} s\n`);
  const kept = await keptTotals(raw, accountId!);
  if (!kept.every((n) => n === total)) throw new Error(`kept totals ${kept.join(', ')} differ from ${total}`);
  const id = accountId!;
  return {
    accountId: id,
    seller: await userOf(ctx, raw, id, 'seller', `lists-seller-${total}@bench.local`),
    admin: await userOf(ctx, raw, id, 'admin', `lists-admin-${total}@bench.local`),
  };
}
