import type { PageHandler } from 'adminjs';
import { ValidationError } from '../../src/errors.js';
import { isSystemWide } from '../../src/policy.js';
import type { Actor } from '../../src/actor.js';
import { isRowId } from '../../src/query.js';
import type { AppContext } from '../../src/app-context.js';
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
  /** An admin's: the account whose queue this is (null: none chosen yet, the page asks which). */
  account_id?: number | null;
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
 * The account whose queue an admin works: the one the request names, else the last one they worked (remembered per
 * user, src/queue/queue-account.ts), else none (the page asks). Sellers and agents: undefined, their own account
 * always, whatever the request names (the service takes it from the actor).
 */
async function adminAccount(ctx: AppContext, actor: Actor, asked: unknown): Promise<number | null | undefined> {
  if (!isSystemWide(actor)) return undefined;
  return idOf(asked) ?? (await ctx.services.queue.lastAccount(actor));
}

/**
 * The agent work queue page (admin/components/queue-page.tsx). GET: what waits. POST `{op}`:
 * `next` claims the next lead; `outcome` sets the held lead's status (note, call-back time) and claims the next one at
 * once; `skip` gives it back and claims the next one; `counts`. Every call goes to ctx.services.queue with the
 * session's user, so the account scope, roles and claims are the service's. An admin names `account_id` (kept as the
 * one their queue opens on next time) or works the last one named; with none, the answer lists the accounts to ask.
 * Writes arrive as AdminJS API POSTs: the session and the same-origin check of admin/panel-guards.ts apply.
 */
export function queuePageHandler(ctx: AppContext): PageHandler {
  const { queue, accounts } = ctx.services;
  return async (request, _response, context) => {
    const actor = pageActor(context);
    const body = request.method === 'post' ? payloadOf(request) : {};
    const accountId = await adminAccount(ctx, actor, body.account_id ?? request.query?.account_id);
    const listed = isSystemWide(actor)
      ? { accounts: (await accounts.listAccounts(actor)).map(({ id, name }) => ({ id, name })) }
      : {};
    // an admin who has not chosen an account yet is asked which (their own has no leads of its own to work)
    if (accountId === null) return { ...listed, account_id: null };
    const scope = accountId === undefined ? {} : { account_id: accountId };
    const zone = await timeZoneOf(ctx, isRowId(accountId ?? Number.NaN) ? accountId! : actor.accountId);
    const call_at = `${wallTime(new Date(Date.now() + 3600_000), zone).slice(0, 13)}:00`;
    const answer: QueueAnswer & Partial<Refusal> = { time_zone: zone, call_at, ...listed };
    await work(queue, actor, body, scope, zone, answer, viewerOf(context).language);
    try {
      answer.counts = await queue.counts(actor, scope);
      // the account was accepted: the admin's queue opens on it next time
      if (accountId !== undefined) {
        answer.account_id = accountId;
        await queue.rememberAccount(actor, accountId);
      }
    } catch (err) {
      Object.assign(answer, refusalOf(err, NOT_FOUND, viewerOf(context).language));
    }
    return answer;
  };
}

/** The op of a POST: an outcome, a skip, the next lead; its refusal in words on the answer. */
async function work(
  queue: AppContext['services']['queue'],
  actor: Actor,
  body: Record<string, unknown>,
  scope: { account_id?: number },
  zone: string,
  answer: QueueAnswer & Partial<Refusal>,
  language: string,
): Promise<void> {
  try {
    const leadId = idOf(body.lead_id) ?? Number.NaN;
    if (body.op === 'outcome') {
      const input = { status: body.status, note: body.note ?? null, action_date: callBackAt(body.action_date, zone) };
      const { lead, order_reference } = await queue.outcome(actor, leadId, input);
      answer.done = { reference: lead.reference, status: lead.status, order_reference };
    }
    if (body.op === 'skip') await queue.release(actor, leadId);
    if (body.op === 'next' || body.op === 'outcome' || body.op === 'skip')
      answer.lead = await queue.next(actor, scope).then((l) => l && zonedLead(l, zone, language));
  } catch (err) {
    Object.assign(answer, refusalOf(err, NOT_FOUND, language));
    // A lost claim or a lead gone: the page drops it (a field error keeps it on screen, to correct and retry).
    if (!(err instanceof ValidationError)) answer.lead = null;
  }
}
