import type { PageHandler } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { isSystemWide } from '../../src/policy.js';
import { todayIn } from '../../src/stats/kpi.schemas.js';
import { formatInZone } from '../../src/time-zones.js';
import { viewerOf } from '../resources/panel-times.js';
import { pageActor, refusalOf } from './page-kit.js';

/** The query keys the KPI service reads; other keys in the address are left out (the service refuses unknown ones). */
const KPI_KEYS = ['from', 'to', 'by', 'account_id'] as const;

/**
 * The KPI dashboard page (admin/components/kpi-page.tsx): GET `?from&to&by&account_id` → ctx.services.kpi.kpi and
 * ctx.services.kpi.speed (speed to lead, return rate) with the session's user, which scopes a seller or an agent to
 * their account whatever `account_id` says; an admin also gets the accounts to pick from. The report's days are days
 * of its `time_zone` (the account's); `as_of_text` is the last fold's time written in that zone by the one formatter
 * ("1 Dec 2026, 14:30 (Africa/Casablanca)"), and `today` the zone's day, which the period's presets end on. A refused
 * query (a bad date, a period too long) answers its words.
 */
export function kpiPageHandler(ctx: AppContext): PageHandler {
  const { kpi, accounts, stock } = ctx.services;
  return async (request, _response, context) => {
    const actor = pageActor(context);
    const source = (request.method === 'post' ? request.payload : request.query) ?? {};
    const query: Record<string, unknown> = {};
    for (const key of KPI_KEYS) {
      const value = source[key];
      if (value !== undefined && value !== '') query[key] = value;
    }
    const extra = isSystemWide(actor)
      ? { accounts: (await accounts.listAccounts(actor)).map(({ id, name }) => ({ id, name })) }
      : {};
    try {
      const [report, speed] = await Promise.all([kpi.kpi(actor, query), kpi.speed(actor, query)]);
      const as_of_text = formatInZone(report.as_of, report.time_zone, viewerOf(context).language);
      // the products at or below their low-stock threshold, now (docs/stock.md), the lowest first
      const low = await stock.list(actor, { account_id: query.account_id, low: true, per_page: 10 }, true);
      const low_stock = { data: low.data, total: low.total };
      return { report, speed, as_of_text, today: todayIn(report.time_zone), low_stock, ...extra };
    } catch (err) {
      return { ...refusalOf(err, 'components.kpi.nothingToShow', viewerOf(context).language), ...extra };
    }
  };
}
