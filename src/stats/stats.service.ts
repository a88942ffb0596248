import { QueryTypes } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { LEAD_STATUSES } from '../leads/lead.model.js';
import { ORDER_STATUSES } from '../orders/order.model.js';
import { accountScope, authorize } from '../policy.js';

export interface DashboardFigures {
  leadsToday: Record<string, number>;
  leads7d: Record<string, number>;
  confirmationRate7d: number | null;
  ordersByStatus: Record<string, number>;
}

/** The home dashboard's figures, scoped like every list: the actor's account, or all accounts for an admin. */
export function createStatsService(core: Core) {
  const { sequelize } = core.db;
  const zero = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0]));

  return {
    async dashboard(actor: Actor): Promise<DashboardFigures> {
      authorize(actor, 'viewAny', 'lead');
      const scope = accountScope(actor);
      const where = scope.account_id ? 'account_id = $1' : 'true';
      const bind = scope.account_id ? [scope.account_id] : [];
      const [leads, orders] = await Promise.all([
        sequelize.query<{ status: string; today: number; week: number }>(
          `SELECT status, count(*) FILTER (WHERE created_at >= date_trunc('day', now()))::int AS today,
                  count(*)::int AS week
             FROM leads WHERE ${where} AND created_at >= now() - interval '7 days' GROUP BY status`,
          { bind, type: QueryTypes.SELECT },
        ),
        sequelize.query<{ status: string; n: number }>(
          `SELECT status, count(*)::int AS n FROM orders WHERE ${where} GROUP BY status`,
          { bind, type: QueryTypes.SELECT },
        ),
      ]);
      const leadsToday = zero(LEAD_STATUSES);
      const leads7d = zero(LEAD_STATUSES);
      for (const r of leads) {
        leadsToday[r.status] = r.today;
        leads7d[r.status] = r.week;
      }
      const week = Object.values(leads7d).reduce((a, b) => a + b, 0);
      const ordersByStatus = zero(ORDER_STATUSES);
      for (const r of orders) ordersByStatus[r.status] = r.n;
      return {
        leadsToday,
        leads7d,
        confirmationRate7d: week ? Math.round((leads7d.confirmed / week) * 1000) / 10 : null,
        ordersByStatus,
      };
    },
  };
}
export type StatsService = ReturnType<typeof createStatsService>;
