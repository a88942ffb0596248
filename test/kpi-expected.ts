import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app-context.js';

/**
 * The KPI report computed the plain way for tests: every source row of the accounts read as it is, and the figures
 * counted in JavaScript from the definitions (issue 20 contracts), without the rollup or any of its SQL. A lead's day
 * is its creation day in its account's time zone, read by Intl (the rollup's by PostgreSQL's zone table).
 */
const STATUSES = ['new', 'confirmed', 'wrong', 'call_later', 'no_answer', 'duplicate', 'canceled'];

interface Source {
  leads: { id: string; account_id: number; status: string; city: string | null; data: unknown; created_at: Date }[];
  products: { lead_id: string; sku: string }[];
  histories: {
    id: string;
    lead_id: string;
    old_status: string | null;
    changed_by_user_id: number | null;
    changed_at: Date;
  }[];
  orders: { lead_id: string | null; status: string }[];
  users: { id: number; name: string }[];
  catalogue: { id: number; account_id: number; sku: string; name: string }[];
  zones: { id: number; time_zone: string }[];
}

/** The rows of a lead belong to the lead's account, whatever account_id they carry. */
const OF_LEADS = 'lead_id IN (SELECT id FROM leads WHERE $ACCOUNT)';

async function readSource(ctx: AppContext, accountId: number | null): Promise<Source> {
  const q = <T extends object>(sql: string) =>
    ctx.db.sequelize.query<T>(sql.replace('$ACCOUNT', accountId ? 'account_id = $1' : 'true'), {
      bind: accountId && sql.includes('$ACCOUNT') ? [accountId] : [],
      type: QueryTypes.SELECT,
    });
  const [leads, products, histories, orders, users, catalogue, zones] = await Promise.all([
    q<Source['leads'][number]>('SELECT id, account_id, status, city, data, created_at FROM leads WHERE $ACCOUNT'),
    q<Source['products'][number]>(`SELECT lead_id, sku FROM lead_products WHERE ${OF_LEADS}`),
    q<Source['histories'][number]>(
      `SELECT id, lead_id, old_status, changed_by_user_id, changed_at FROM lead_histories WHERE ${OF_LEADS}`,
    ),
    q<Source['orders'][number]>(`SELECT lead_id, status FROM orders WHERE ${OF_LEADS}`),
    q<Source['users'][number]>('SELECT id, name FROM users'),
    q<Source['catalogue'][number]>('SELECT id, account_id, sku, name FROM products'),
    q<Source['zones'][number]>('SELECT id, time_zone FROM accounts'),
  ]);
  return { leads, products, histories, orders, users, catalogue, zones };
}

const figures = (leads: number, confirmed: number, delivered: number) => ({
  leads,
  confirmed,
  delivered,
  confirmation_rate: leads ? Math.round((confirmed / leads) * 1000) / 10 : null,
  delivery_rate: confirmed ? Math.round((delivered / confirmed) * 1000) / 10 : null,
});

/** The keys one lead counts under for a breakdown. */
function keysOf(
  by: string,
  lead: Source['leads'][number],
  skusByLead: Map<string, Set<string>>,
  latestAgent: Map<string, number>,
): string[] {
  if (by === 'city') return [lead.city?.trim() || '(none)'];
  if (by === 'source') {
    const pairs = Array.isArray(lead.data) ? (lead.data as { key?: string; value?: string }[]) : [];
    const hit = pairs.find((p) => typeof p.key === 'string' && p.key.toLowerCase() === 'utm_source');
    return [hit?.value?.trim() || '(none)'];
  }
  if (by === 'agent') {
    const user = latestAgent.get(String(lead.id));
    return [user === undefined ? '(nobody)' : String(user)];
  }
  const skus = [...(skusByLead.get(String(lead.id)) ?? [])];
  return skus.length ? skus : ['(none)'];
}

function labelOf(by: string, key: string, src: Source, accountId: number | null): string {
  if (by === 'product') {
    const p = src.catalogue
      .filter((c) => c.sku === key && (accountId === null || c.account_id === accountId))
      .sort((a, b) => a.id - b.id)[0];
    return p?.name ?? key;
  }
  if (by === 'agent') return src.users.find((u) => String(u.id) === key)?.name ?? key;
  return key;
}

/** The user of each lead's latest history entry made by a user (by time, then entry id). */
function latestAgents(src: Source): Map<string, number> {
  const best = new Map<string, Source['histories'][number]>();
  for (const h of src.histories) {
    // the user who changed its status last; whoever created the lead is not its agent
    if (h.changed_by_user_id === null || h.old_status === null) continue;
    const b = best.get(String(h.lead_id));
    const later =
      !b ||
      new Date(h.changed_at).getTime() > new Date(b.changed_at).getTime() ||
      (new Date(h.changed_at).getTime() === new Date(b.changed_at).getTime() && Number(h.id) > Number(b.id));
    if (later) best.set(String(h.lead_id), h);
  }
  return new Map([...best].map(([lead, h]) => [lead, h.changed_by_user_id!]));
}

/** The day (`YYYY-MM-DD`) an instant falls on in `zone`. */
export const dayIn = (when: Date | string, zone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(when),
  );

/** The report (without as_of and time_zone) for an account (null: every account) over [from, to], by the given breakdown. */
export async function expectedReport(
  ctx: AppContext,
  q: { accountId: number | null; from: string; to: string; by: string },
) {
  const src = await readSource(ctx, q.accountId);
  const delivered = new Set(src.orders.filter((o) => o.status === 'delivered').map((o) => String(o.lead_id)));
  const agents = latestAgents(src);
  // every lead's skus, read once (the suite's whole database is large when an admin's report of every account is
  // checked: a scan of every line per lead took minutes)
  const skusByLead = new Map<string, Set<string>>();
  for (const p of src.products) {
    const set = skusByLead.get(String(p.lead_id)) ?? new Set<string>();
    skusByLead.set(String(p.lead_id), set.add(p.sku));
  }
  const days: { day: string; counts: Record<string, number>; delivered: number }[] = [];
  for (let t = Date.parse(`${q.from}T00:00:00Z`); t <= Date.parse(`${q.to}T00:00:00Z`); t += 86_400_000)
    days.push({
      day: new Date(t).toISOString().slice(0, 10),
      counts: Object.fromEntries(STATUSES.map((s) => [s, 0])),
      delivered: 0,
    });
  const dayByDate = new Map(days.map((d) => [d.day, d]));
  const zoneOf = new Map(src.zones.map((z) => [z.id, z.time_zone]));
  const groups = new Map<string, { leads: number; confirmed: number; delivered: number }>();
  let leads = 0;
  let confirmed = 0;
  let deliveredCount = 0;
  for (const lead of src.leads) {
    const day = dayByDate.get(dayIn(lead.created_at, zoneOf.get(lead.account_id)!));
    if (!day) continue;
    const isConfirmed = lead.status === 'confirmed' ? 1 : 0;
    const isDelivered = delivered.has(String(lead.id)) ? 1 : 0;
    day.counts[lead.status]++;
    day.delivered += isDelivered;
    leads++;
    confirmed += isConfirmed;
    deliveredCount += isDelivered;
    for (const key of keysOf(q.by, lead, skusByLead, agents)) {
      const g = groups.get(key) ?? { leads: 0, confirmed: 0, delivered: 0 };
      g.leads++;
      g.confirmed += isConfirmed;
      g.delivered += isDelivered;
      groups.set(key, g);
    }
  }
  const breakdown = [...groups]
    .sort(([ka, a], [kb, b]) => b.leads - a.leads || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .slice(0, 50)
    .map(([key, g]) => ({
      key,
      label: labelOf(q.by, key, src, q.accountId),
      ...figures(g.leads, g.confirmed, g.delivered),
    }));
  return {
    from: q.from,
    to: q.to,
    account_id: q.accountId,
    days,
    totals: figures(leads, confirmed, deliveredCount),
    by: q.by,
    breakdown,
  };
}
