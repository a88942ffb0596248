import type { PageHandler } from 'adminjs';
import { can } from '../../src/policy.js';
import { pageActor } from './page-kit.js';

/**
 * "My account" (admin/components/account-page.tsx): the signed-in user's own account and login, with what the policy
 * lets them do there. A seller edits the account's settings (name, phone country, time zone, the
 * thresholds of the customers' risk rule) and their profile; an agent only
 * sees the account. The ids come from the session, never from the request.
 */
export const accountPageHandler: PageHandler = async (_request, _response, context) => {
  const actor = pageActor(context);
  const own = { account_id: actor.accountId };
  const accountId = actor.accountId as number;
  const userId = actor.kind === 'user' ? actor.userId : null;
  return {
    account: can(actor, 'view', 'account', own)
      ? { id: accountId, editable: can(actor, 'update', 'account', own) }
      : null,
    profile:
      userId && can(actor, 'view', 'user', own) ? { id: userId, editable: can(actor, 'update', 'user', own) } : null,
  };
};
