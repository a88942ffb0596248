import type { PageHandler } from 'adminjs';
import type { AppContext } from '../../src/context.js';
import { isSystemWide } from '../../src/policy.js';
import { pageActor, refusalOf } from './page-kit.js';

/** The query keys the KPI service reads; other keys in the address are left out (the service refuses unknown ones). */
const KPI_KEYS = ['from', 'to', 'by', 'account_id'] as const;

/**
 * The KPI dashboard page (admin/components/kpi-page.tsx): GET `?from&to&by&account_id` → ctx.services.kpi.kpi with
 * the session's user, which scopes a seller or an agent to their account whatever `account_id` says; an admin also
 * gets the accounts to pick from. A refused query (a bad date, a period too long) answers its words.
 */
export function kpiPageHandler(ctx: AppContext): PageHandler {
  const { kpi, accounts } = ctx.services;
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
      return { report: await kpi.kpi(actor, query), ...extra };
    } catch (err) {
      return { ...refusalOf(err, 'Nothing to show.'), ...extra };
    }
  };
}
