import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { systemActor, userActor, type Actor, type Scope } from '../src/actor.js';
import type { AppContext } from '../app/context.js';

/**
 * One account with `total` leads spread evenly over the last 365 days, in creation order, written in SQL
 * (generate_series, one statement per 100,000 leads: leads, their products, history and orders in data-modifying
 * CTEs, the shape of the import's batch insert, so every trigger fires as for real writes). Per lead: 1 sku of 20 (a
 * third hold a second one), a city of 30 (a quarter in one), a utm_source of 8 under a key spelled in three cases (one
 * lead in 7 has no data), a status (30 % confirmed), a creation entry by the seller, a status change by one of 8
 * agents for every lead not new, a second change by another agent for one in five; an order for each confirmed lead,
 * most delivered. An account filled by an earlier run is reused when its lead count says it is complete.
 */
const CITY = `ARRAY['Casablanca','Casablanca','Casablanca','Casablanca','Casablanca','Casablanca','Casablanca',
  'Casablanca','Rabat','Rabat','Marrakech','Marrakech','Fes','Fes','Tangier','Agadir','Meknes','Oujda','Kenitra',
  'Tetouan','Safi','Temara','Mohammedia','El Jadida','Beni Mellal','Nador','Taza','Settat','Khouribga','Larache']`;
const SOURCE = `ARRAY['facebook','google','tiktok','instagram','snapchat','youtube','email','Facebook']`;
const KEY = `ARRAY['utm_source','UTM_Source','utm_source']`;
const LEAD_STATUS = `ARRAY['new','confirmed','confirmed','confirmed','wrong','call_later','no_answer','canceled',
  'duplicate','no_answer']`;
const ORDER_STATUS = `ARRAY['new','pushed','shipped','delivered','returned','canceled','delivered','delivered']`;

/**
 * $1 account, $2..$3 the range of `g`, $4 product ids, $5 skus, $6 agent ids, $7 the seller's id, $8 the total, $9 an
 * API token of the account (a third of the leads came through the REST API): lead g is created at g / total of the
 * year that ends now, so the leads are in the table in the order they were created. The first status change is the
 * lead's first touch (leads.first_touch_at, as the status update writes it).
 */
const FILL = `
WITH l AS (
  INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, data, status, total, created_at,
                     updated_at, first_touch_at, first_touch_user_id, created_by_token_id)
  SELECT $1, 'LK' || lpad(g::text, 10, '0'), '+2125' || x.p, '2125' || x.p, 'Customer ' || g,
         (${CITY})[1 + x.h3 % 30],
         CASE WHEN x.h1 % 7 = 0 THEN '[]'::jsonb ELSE jsonb_build_array(
           jsonb_build_object('key', 'utm_campaign', 'value', 'c' || x.h2 % 50),
           jsonb_build_object('key', (${KEY})[1 + x.h2 % 3], 'value', (${SOURCE})[1 + x.h1 % 8])) END,
         y.status, 360, x.at, x.at,
         CASE WHEN y.status <> 'new' THEN x.at + y.delay END,
         CASE WHEN y.status <> 'new' THEN ($6::int[])[1 + x.h2 % 8] END,
         CASE WHEN g % 3 = 1 THEN $9::int END
    FROM generate_series($2::int, $3::int) g,
         LATERAL (SELECT abs(hashint8(g)) AS h1, abs(hashint8(-g)) AS h2, abs(hashint8(g + 4000000000)) AS h3,
                         lpad((abs(hashint8(g + 8000000000)) % 100000000)::text, 8, '0') AS p,
                         now() - interval '365 days' + (g::float8 * 31536000 / $8::int) * interval '1 second' AS at) x,
         -- the first touch: log-uniform between 30 s and 7 days (median ≈ 71 min), by one of the 8 agents
         LATERAL (SELECT (${LEAD_STATUS})[1 + (x.h3 / 30) % 10] AS status,
                         exp(ln(30) + (x.h1 % 10007) / 10007.0 * ln(604800 / 30.0)) * interval '1 second' AS delay) y
  RETURNING id, account_id, reference, phone, phone_normalized, full_name, city, status, total, created_at,
            first_touch_at, first_touch_user_id),
p AS (
  INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
  SELECT l.account_id, l.id, ($4::int[])[s.k], ($5::text[])[s.k], ($5::text[])[s.k], 1, 120, s.n
    FROM l CROSS JOIN LATERAL (
      SELECT 1 + abs(hashint8(l.id)) % 20 AS k, 0 AS n
      UNION ALL SELECT 1 + (abs(hashint8(l.id)) / 20 + 1) % 20, 1 WHERE l.id % 3 = 0) s),
h AS (
  INSERT INTO lead_histories (account_id, lead_id, lead_reference, old_status, new_status, changed_by,
                              changed_by_user_id, changed_at)
  SELECT account_id, id, reference, NULL, 'new', 'Bench seller', $7::int, created_at FROM l
  UNION ALL
  SELECT account_id, id, reference, 'new', status, 'Bench agent', first_touch_user_id, first_touch_at
    FROM l WHERE status <> 'new'
  UNION ALL
  SELECT account_id, id, reference, status, status, 'Bench agent', ($6::int[])[1 + abs(hashint8(id + 2)) % 8],
         first_touch_at + interval '1 hour'
    FROM l WHERE status <> 'new' AND id % 5 = 0)
INSERT INTO orders (account_id, reference, lead_id, lead_reference, phone, phone_normalized, full_name, city, total,
                    status, created_at, updated_at)
SELECT account_id, 'OK' || substr(reference, 3), id, reference, phone, phone_normalized, full_name, city, total,
       (${ORDER_STATUS})[1 + (id * 3) % 8], created_at, created_at
  FROM l WHERE status = 'confirmed'`;

export interface KpiAccount {
  accountId: number;
  seller: Actor;
  admin: Actor;
}

/** The users of the bench account: a seller, an admin and 8 agents, made when missing. */
async function users(ctx: AppContext, raw: pg.Client, accountId: number) {
  const ensure = async (role: 'seller' | 'admin' | 'agent', n: number) => {
    const email = `kpi-${role}-${n}-${accountId}@bench.local`;
    const found = await raw.query<{ id: number }>('SELECT id FROM users WHERE lower(email) = $1', [email]);
    const name = `Bench ${role} ${n}`;
    const id =
      found.rows[0]?.id ??
      (await ctx.services.accounts
        .createUser(systemActor(), {
          account_id: accountId,
          role,
          email,
          password: 'bench-password',
          name,
        })
        .then((u) => u.id));
    return userActor({ id, account_id: accountId, role, name });
  };
  const agents = [];
  for (let i = 1; i <= 8; i++) agents.push(await ensure('agent', i));
  return { seller: await ensure('seller', 1), admin: await ensure('admin', 1), agents };
}

/** The bench account `KPI bench <total>` with its rows, filled now unless an earlier run left it complete. */
export async function kpiAccount(ctx: AppContext, raw: pg.Client, total: number): Promise<KpiAccount> {
  // (named anew when the fill changes: an account filled by an earlier definition is not reused)
  const name = `KPI bench ${total} with touches`;
  const found = await raw.query<{ id: number }>('SELECT id FROM accounts WHERE lower(name) = lower($1)', [name]);
  let accountId = found.rows[0]?.id;
  const count = async (id: number) =>
    Number((await raw.query<{ n: string }>('SELECT count(*) AS n FROM leads WHERE account_id = $1', [id])).rows[0].n);
  const complete = accountId && (await count(accountId)) === total;
  if (accountId && !complete)
    await raw.query('UPDATE accounts SET name = $2 WHERE id = $1', [accountId, `${name} incomplete ${Date.now()}`]);
  if (!complete) accountId = (await ctx.services.accounts.createAccount(systemActor(), { name })).id;
  const id = accountId!;
  const who = await users(ctx, raw, id);
  if (!complete) {
    const products: { id: number; sku: string }[] = [];
    for (let i = 1; i <= 20; i++) {
      const sku = `K-${String(i).padStart(2, '0')}`;
      const p = await ctx.services.catalogue.createProduct(systemActor(), {
        account_id: id,
        sku,
        name: `Product ${sku}`,
        price: 120,
      });
      products.push({ id: p.id, sku });
    }
    const t0 = performance.now();
    const agentIds = who.agents.map((a) => (a.kind === 'user' ? a.userId : 0));
    const sellerId = who.seller.kind === 'user' ? who.seller.userId : 0;
    const scopes: Scope[] = ['CREATE LEADS'];
    const { token } = await ctx.services.tokens.createToken(systemActor(), {
      user_id: sellerId,
      name: 'bench',
      scopes,
    });
    for (let from = 1; from <= total; from += 100_000)
      await raw.query(FILL, [
        id,
        from,
        Math.min(total, from + 99_999),
        products.map((p) => p.id),
        products.map((p) => p.sku),
        agentIds,
        sellerId,
        total,
        Number(token.split('|')[0]),
      ]);
    process.stdout.write(`filled ${total} leads with products, history and orders in SQL: ${secs(t0)}\n`);
  } else process.stdout.write(`reusing account ${id} (${total} leads)\n`);
  return { accountId: id, seller: who.seller, admin: who.admin };
}

export const secs = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/**
 * What the rollup's triggers cost a write: the fill's statement for 5,000 leads (the import's batch shape: leads,
 * products, history and orders in one statement) under EXPLAIN ANALYZE, rolled back; answers each trigger's time.
 */
export async function triggerCost(raw: pg.Client, accountId: number) {
  const { rows: ids } = await raw.query<{ id: number; sku: string }>(
    'SELECT id, sku FROM products WHERE account_id = $1 ORDER BY sku',
    [accountId],
  );
  const { rows: agents } = await raw.query<{ id: number }>(
    "SELECT id FROM users WHERE account_id = $1 AND role = 'agent' ORDER BY id",
    [accountId],
  );
  await raw.query('BEGIN');
  try {
    const { rows } = await raw.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${FILL}`, [
      accountId,
      50_000_001,
      50_005_000,
      ids.map((p) => p.id),
      ids.map((p) => p.sku),
      agents.map((a) => a.id),
      agents[0].id,
      2_000_000_000, // all on one day, like an import's batch
      null,
    ]);
    const plan = (rows[0] as { 'QUERY PLAN': [{ 'Execution Time': number; Triggers: TriggerTime[] }] })[
      'QUERY PLAN'
    ][0];
    return { total: plan['Execution Time'], triggers: plan.Triggers };
  } finally {
    await raw.query('ROLLBACK');
  }
}
interface TriggerTime {
  'Trigger Name': string;
  Relation: string;
  Time: number;
  Calls: number;
}
