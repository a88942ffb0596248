import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { LEAD_STATUSES, type LeadStatus } from '../leads/lead.model.js';
import { accountScope, authorize } from '../policy.js';
import { createKpiRepository, type KpiStatusDay } from './kpi.repository.js';
import { timeZoneOf } from '../accounts/time-zone.js';
import { daysOf, figures, kpiQuery, kpiQueryInput, type KpiDay, type KpiReport } from './kpi.schemas.js';
import { createKpiSpeedRepository } from './kpi-speed.repository.js';
import { rebuildRequested } from './kpi-zones.repository.js';
import type { SpeedReport } from './kpi-speed.schemas.js';
import { speedFigures } from './kpi-speed.js';

/** Every day of the period with its counts per status, zeros included, and the totals over the period. */
function dayFigures(days: string[], rows: KpiStatusDay[]): { days: KpiDay[]; totals: KpiReport['totals'] } {
  const byDay = new Map<string, KpiDay>();
  for (const day of days)
    byDay.set(day, {
      day,
      counts: Object.fromEntries(LEAD_STATUSES.map((s) => [s, 0])) as Record<LeadStatus, number>,
      delivered: 0,
    });
  let leads = 0;
  let delivered = 0;
  for (const r of rows) {
    const d = byDay.get(r.day);
    if (!d) continue;
    d.counts[r.status as LeadStatus] = (d.counts[r.status as LeadStatus] ?? 0) + r.leads;
    d.delivered += r.delivered;
    leads += r.leads;
    delivered += r.delivered;
  }
  const all = [...byDay.values()];
  const confirmed = all.reduce((n, d) => n + d.counts.confirmed, 0);
  return { days: all, totals: figures(leads, confirmed, delivered) };
}

/**
 * The KPI dashboard (leads per day by status, confirmation and delivery rates, a breakdown by product, city, source
 * or agent), read from the daily rollup that the `fold-kpi` job keeps (migrations/20261129000000-kpi-daily.ts).
 */
export function createKpiService(core: Core) {
  const repo = createKpiRepository(core.db.sequelize);
  const speedRepo = createKpiSpeedRepository(core.db.sequelize);
  /** The actor's scope and the completed query (the account's zone decides "today"); a ValidationError if bad. */
  const scoped = async (actor: Actor, query: unknown) => {
    authorize(actor, 'viewAny', 'lead');
    const input = kpiQueryInput(query);
    const accountId = accountScope(actor, input.account_id).account_id;
    const zone = await timeZoneOf(core, accountId ?? actor.accountId);
    const q = kpiQuery(input, zone);
    return { q, zone, range: { accountId, from: q.from, to: q.to } };
  };
  return {
    /**
     * The report of a period (inclusive days of the account's time zone, default the last 30 up to its today, at most
     * 366) for the actor's account, or for an admin the account named by `account_id` or every account (each account's
     * leads on its own days; today is the admin's account's). Cohorts are by creation day: a lead counts on the
     * account's day it was created, under its current status. Figures lag writes by up to a fold (about a minute):
     * `as_of`. Bad input is a ValidationError naming the field.
     */
    async kpi(actor: Actor, query: unknown): Promise<KpiReport> {
      const { q, zone, range } = await scoped(actor, query);
      const { accountId } = range;
      const [statusDays, breakdown, foldedAt] = await Promise.all([
        repo.statusDays(range),
        repo.breakdown(range, q.by),
        repo.foldedAt(),
      ]);
      return {
        from: q.from,
        to: q.to,
        account_id: accountId ?? null,
        time_zone: zone,
        as_of: new Date(foldedAt).toISOString(),
        ...dayFigures(daysOf(q.from, q.to), statusDays),
        by: q.by,
        breakdown: breakdown.map((b) => ({
          key: b.key,
          label: b.label,
          ...figures(b.leads, b.confirmed, b.delivered),
        })),
      };
    },

    /**
     * Speed to lead and return rate over the same period and scope as `kpi` (the same query; `by` is not used): the
     * median and 90th percentile of the delay from a lead's creation to its first status change by a person, per day,
     * per first toucher and per entry point, at the resolution of DELAY_EDGES (docs/decisions.md "Speed to lead");
     * the confirmation rate per delay band; returned / (delivered + returned) by city, product and the person who
     * confirmed. Cohorts by creation day, like `kpi`; figures lag writes by up to a fold (`as_of`).
     */
    async speed(actor: Actor, query: unknown): Promise<SpeedReport> {
      const { q, zone, range } = await scoped(actor, query);
      const [figuresOf, foldedAt] = await Promise.all([speedFigures(speedRepo, range), repo.foldedAt()]);
      return {
        from: q.from,
        to: q.to,
        account_id: range.accountId ?? null,
        time_zone: zone,
        as_of: new Date(foldedAt).toISOString(),
        ...figuresOf,
      };
    },

    /** Folds the writes made since the last fold into the rollup (the job, every minute); answers the days redone. */
    fold: (): Promise<number> => repo.fold(),
    /** Recomputes the days of the accounts whose zone changed (the job `rebuild-kpi-zones`); answers how many. */
    rebuildZones: (): Promise<number> => rebuildRequested(core.db.sequelize),

    /** Recomputes the whole rollup from the source tables (CLI `kpi:rebuild`); answers the days computed. */
    rebuild: (): Promise<number> => repo.rebuild(),
  };
}
export type KpiService = ReturnType<typeof createKpiService>;
