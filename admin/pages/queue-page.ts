import type { PageHandler } from 'adminjs';
import { ValidationError } from '../../src/errors.js';
import { isSystemWide } from '../../src/policy.js';
import type { AppContext } from '../../src/context.js';
import type { QueueItem } from '../../src/queue/queue.service.js';
import { idOf, pageActor, payloadOf, refusalOf, type Refusal } from './page-kit.js';

/** What the queue page shows after every request: the counts, the lead held now, and what just happened. */
interface QueueAnswer {
  counts?: Awaited<ReturnType<AppContext['services']['queue']['counts']>>;
  lead?: QueueItem | null;
  done?: { reference: string; status: string; order_reference: string | null };
  accounts?: { id: number; name: string }[];
}

const NOT_FOUND = 'This lead does not exist or is not in your queue. Take the next one.';

/**
 * The agent work queue page (admin/components/queue-page.tsx). GET: what waits. POST `{op}`:
 * `next` claims the next lead; `outcome` sets the held lead's status (note, call-back time) and claims the next one at
 * once; `skip` gives it back and claims the next one; `counts`. Every call goes to ctx.services.queue with the
 * session's user, so the account scope, roles and claims are the service's; an admin may name `account_id`.
 * Writes arrive as AdminJS API POSTs: the session and the same-origin check of admin/panel-guards.ts apply.
 */
export function queuePageHandler(ctx: AppContext): PageHandler {
  const { queue, accounts } = ctx.services;
  return async (request, _response, context) => {
    const actor = pageActor(context);
    const body = request.method === 'post' ? payloadOf(request) : {};
    const accountId = idOf(body.account_id ?? request.query?.account_id);
    const scope = accountId === undefined ? {} : { account_id: accountId };
    const answer: QueueAnswer & Partial<Refusal> = {};
    try {
      const leadId = idOf(body.lead_id) ?? Number.NaN;
      if (body.op === 'outcome') {
        const input = { status: body.status, note: body.note ?? null, action_date: body.action_date || undefined };
        const { lead, order_reference } = await queue.outcome(actor, leadId, input);
        answer.done = { reference: lead.reference, status: lead.status, order_reference };
      }
      if (body.op === 'skip') await queue.release(actor, leadId);
      if (body.op === 'next' || body.op === 'outcome' || body.op === 'skip')
        answer.lead = await queue.next(actor, scope);
    } catch (err) {
      Object.assign(answer, refusalOf(err, NOT_FOUND));
      // A lost claim or a lead gone: the page drops it (a field error keeps it on screen, to correct and retry).
      if (!(err instanceof ValidationError)) answer.lead = null;
    }
    try {
      answer.counts = await queue.counts(actor, scope);
    } catch (err) {
      Object.assign(answer, refusalOf(err, NOT_FOUND));
    }
    if (isSystemWide(actor))
      answer.accounts = (await accounts.listAccounts(actor)).map(({ id, name }) => ({ id, name }));
    return answer;
  };
}
