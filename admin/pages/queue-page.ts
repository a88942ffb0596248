import type { PageHandler } from 'adminjs';
import { ValidationError } from '../../src/errors.js';
import { isSystemWide } from '../../src/policy.js';
import type { AppContext } from '../../src/context.js';
import type { QueueItem } from '../../src/queue/queue.service.js';
import { timeZoneOf } from '../../src/accounts/time-zone.js';
import { formatInZone, wallTime, wallTimeToUtc } from '../../src/time-zones.js';
import { viewerOf } from '../resources/panel-times.js';
import { customerView } from '../resources/customer-view.js';
import { idOf, pageActor, payloadOf, refusalOf, type Refusal } from './page-kit.js';

/** What the queue page shows after every request: the counts, the lead held now, and what just happened. */
interface QueueAnswer {
  counts?: Awaited<ReturnType<AppContext['services']['queue']['counts']>>;
  lead?: QueueItem | null;
  done?: { reference: string; status: string; order_reference: string | null };
  accounts?: { id: number; name: string }[];
  /** The account's zone: the page's times are written in it and the call-back time is typed in it. */
  time_zone?: string;
  /** The picker's first value: the next full hour but one, as a wall time of the zone. */
  call_at?: string;
}

/**
 * The held lead with its times written by the server in the account's zone (the browsers' zone data differ), the one
 * formatter of src/time-zones.ts: `times` for the card, `when_text` on each history entry.
 */
function zonedLead(lead: QueueItem, zone: string, language: string) {
  const say = (iso: string | null | undefined) => formatInZone(iso, zone, language);
  return {
    ...lead,
    times: { created_at: say(lead.created_at), action_date: say(lead.action_date), claim: say(lead.claim_expires_at) },
    history: lead.history.map((h) => ({ ...h, when_text: say(h.changed_at) })),
    // who is on the line: the customer record of the phone the lead's show answered, null without an E.164 form
    customer: customerView(lead.customer ?? undefined, zone, language),
  };
}

/** The picker's wall time (`2026-12-01T14:30`) in the account's zone → UTC; anything else goes to the service as is. */
const callBackAt = (value: unknown, zone: string): unknown => {
  const utc = typeof value === 'string' && /T/.test(value) ? wallTimeToUtc(value, zone) : null;
  return utc ? utc.toISOString() : value || undefined;
};

const NOT_FOUND = 'components.queue.notFound';

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
    // only an admin names another account (a seller's account_id names nothing, and tells nothing of its zone)
    const named = isSystemWide(actor) && Number.isSafeInteger(accountId) ? accountId : undefined;
    const zone = await timeZoneOf(ctx, named ?? actor.accountId);
    const call_at = `${wallTime(new Date(Date.now() + 3600_000), zone).slice(0, 13)}:00`;
    const answer: QueueAnswer & Partial<Refusal> = { time_zone: zone, call_at };
    try {
      const leadId = idOf(body.lead_id) ?? Number.NaN;
      if (body.op === 'outcome') {
        const input = { status: body.status, note: body.note ?? null, action_date: callBackAt(body.action_date, zone) };
        const { lead, order_reference } = await queue.outcome(actor, leadId, input);
        answer.done = { reference: lead.reference, status: lead.status, order_reference };
      }
      if (body.op === 'skip') await queue.release(actor, leadId);
      if (body.op === 'next' || body.op === 'outcome' || body.op === 'skip')
        answer.lead = await queue.next(actor, scope).then((l) => l && zonedLead(l, zone, viewerOf(context).language));
    } catch (err) {
      Object.assign(answer, refusalOf(err, NOT_FOUND, viewerOf(context).language));
      // A lost claim or a lead gone: the page drops it (a field error keeps it on screen, to correct and retry).
      if (!(err instanceof ValidationError)) answer.lead = null;
    }
    try {
      answer.counts = await queue.counts(actor, scope);
    } catch (err) {
      Object.assign(answer, refusalOf(err, NOT_FOUND, viewerOf(context).language));
    }
    if (isSystemWide(actor))
      answer.accounts = (await accounts.listAccounts(actor)).map(({ id, name }) => ({ id, name }));
    return answer;
  };
}
