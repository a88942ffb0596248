import type { Transaction } from 'sequelize';
import { accountExists } from '../chosen-account.js';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { LEAD_LOCK } from '../leads/lead.repository.js';
import type { LeadService } from '../leads/lead.service.js';
import { accountScope, authorize, authorizeQueueWork, isSystemWide, targetAccount } from '../policy.js';
import { findInScope, isRowId, lockByKeys } from '../query.js';
import { validate } from '../validation.js';
import { callBackDate, pastCallBack } from '../leads/call-back.js';
import {
  countQueue,
  deleteStaleClaims,
  deleteStaleGiveBacks,
  endClaim,
  lockAgent,
  lockClaim,
  releaseClaims,
  upsertClaim,
  type Asker,
} from './queue.repository.js';
import { QUEUE_RULES } from './queue-rules.repository.js';
import { lastQueueAccount, rememberQueueAccount } from './queue-account.js';
import {
  outcomeSchema,
  queueScopeSchema,
  type OutcomeInput,
  type QueueCounts,
  type QueueScopeInput,
} from './queue.schemas.js';

export type { QueueCounts } from './queue.schemas.js';

/** The full lead as `leads.show` answers it. */
export type QueueLead = Awaited<ReturnType<LeadService['show']>>;
/** A lead handed out by the queue, and until when the agent holds it. */
export type QueueItem = QueueLead & { claim_expires_at: string };
/** A lead as the queue's callers name it: its id (panel), or its reference (REST). */
export type QueueLeadKey = number | { id: number } | { reference: string };

/** What a lead reference can look like (src/references.ts: a prefix and 10 Crockford base32 characters). */
const REFERENCE = /^[A-Z0-9]{1,12}$/;

/** Candidates one `next` tries before answering that the queue is busy (each miss is another agent's fresh claim). */
const MAX_ATTEMPTS = 20;

interface QueueCore extends Core {
  leads: LeadService;
}

/** The account whose queue the actor works: their own; an admin may name any existing account. */
async function queueAccount(core: Core, actor: Actor, input: unknown): Promise<number> {
  const { account_id } = validate<QueueScopeInput>(queueScopeSchema, input ?? {});
  const invalid = () => ValidationError.single('account_id', 'The selected account_id is invalid.');
  if (!isSystemWide(actor)) {
    // another account is answered like an unknown one
    if (account_id !== undefined && account_id !== actor.accountId) throw invalid();
    return targetAccount(actor);
  }
  if (account_id !== undefined && !(await accountExists(core.db.sequelize, account_id))) throw invalid();
  return targetAccount(actor, account_id);
}

/** The user a claim belongs to: the person, or the owner of the REST token. */
function claimant(actor: Actor): number {
  const userId = actorUserId(actor);
  if (userId === null) throw new ForbiddenError('The work queue is worked by people, not by system jobs.');
  return userId;
}

/** The first lead of the queue's rules, in their order, that the asker may take (locked), or null. */
async function firstCandidate(core: QueueCore, transaction: Transaction, asker: Asker): Promise<number | null> {
  for (const rule of QUEUE_RULES) {
    const leadId = await rule(core.db.sequelize, transaction, asker);
    if (leadId !== null) return leadId;
  }
  return null;
}

/** Gives back the asker's earlier claim, then claims the first lead nobody else holds. */
async function claimNext(core: QueueCore, transaction: Transaction, asker: Asker) {
  const { sequelize } = core.db;
  await lockAgent(sequelize, transaction, asker.userId);
  await releaseClaims(sequelize, transaction, asker);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const leadId = await firstCandidate(core, transaction, asker);
    if (leadId === null) return null;
    const expiresAt = await upsertClaim(sequelize, transaction, {
      leadId,
      accountId: asker.accountId,
      userId: asker.userId,
      seconds: core.config.queue.claimSeconds,
      skipSeconds: asker.skipSeconds,
    });
    if (expiresAt) return { leadId, expiresAt };
    asker.tried.push(leadId);
  }
  throw new ConflictError('The queue is busy; ask again.');
}

/**
 * Hands the actor the next lead of the account's queue (src/queue/queue-rules.repository.ts: fresh new leads, due
 * call-backs, older new leads, no_answer leads due for another try), leaving out the leads the actor gave back in the
 * last QUEUE_CLAIM_SECONDS, and claims it for QUEUE_CLAIM_SECONDS, giving back the actor's earlier claim. Null when
 * nothing waits.
 */
async function next(core: QueueCore, actor: Actor, input?: unknown): Promise<QueueItem | null> {
  authorizeQueueWork(actor);
  const accountId = await queueAccount(core, actor, input);
  const userId = claimant(actor);
  const { claimSeconds: seconds, freshSeconds, retrySeconds } = core.config.queue;
  const asker: Asker = { accountId, userId, skipSeconds: seconds, freshSeconds, retrySeconds, tried: [] };
  // lapsed claims and run-out give-backs are cleaned first, on their own (src/queue/queue.repository.ts)
  await deleteStaleClaims(core.db.sequelize, accountId, seconds);
  await deleteStaleGiveBacks(core.db.sequelize, accountId);
  // a lead deleted between the claim and its reading (its claim goes with it) is passed over for the next one
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await core.db.sequelize.transaction((t) => claimNext(core, t, asker));
    if (!claimed) return null;
    try {
      const lead = await core.leads.show(actor, { id: claimed.leadId });
      return { ...lead, claim_expires_at: claimed.expiresAt.toISOString() };
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  throw new ConflictError('The queue is busy; ask again.');
}

/** The lead named by `key` in the actor's scope, locked for the transaction; unknown and foreign alike not found. */
async function lockLead(core: Core, transaction: Transaction, actor: Actor, key: QueueLeadKey) {
  const k = typeof key === 'number' ? { id: key } : key;
  const byId = 'id' in k;
  const wanted = byId ? Number(k.id) : String(k.reference).toUpperCase();
  // a value no lead can have names none (and never reaches the database: PostgreSQL refuses NUL in text)
  if (byId ? !isRowId(wanted as number) : !REFERENCE.test(wanted as string)) throw new NotFoundError();
  const { byKey } = await lockByKeys(core.db.sequelize, transaction, LEAD_LOCK, {
    by: byId ? 'ids' : 'references',
    keys: [wanted],
    accountId: accountScope(actor).account_id,
    path: () => 'lead',
  });
  const lead = byKey.get(String(wanted));
  if (!lead) throw new NotFoundError();
  return lead;
}

/**
 * Sets the outcome of a lead the actor holds (or held, when the claim lapsed and nobody else took it): the status
 * change through the leads' one write path (history with the note, the order of a confirmed lead), and the claim ends,
 * in one transaction. Another agent's lead is a ConflictError.
 */
async function outcome(core: QueueCore, actor: Actor, key: QueueLeadKey, input: unknown) {
  authorizeQueueWork(actor);
  const v = validate<OutcomeInput>(outcomeSchema, input);
  pastCallBack([v], () => 'action_date');
  const userId = claimant(actor);
  const { sequelize } = core.db;
  const leadId = await sequelize.transaction(async (transaction) => {
    const lead = await lockLead(core, transaction, actor, key);
    authorizeQueueWork(actor, lead);
    const claim = await lockClaim(sequelize, transaction, lead.id, core.config.queue.retrySeconds);
    if (claim?.user_id !== userId) {
      throw new ConflictError(
        claim?.live
          ? 'Another agent is working on this lead.'
          : 'You do not hold this lead: take the next one from the queue.',
      );
    }
    // settled or rescheduled elsewhere while held: the agent's outcome would overwrite a decision they never saw
    if (!claim.queued) {
      throw new ConflictError(
        `Lead ${lead.reference} no longer waits in the queue (it was changed while you held it): nothing was changed.`,
      );
    }
    const move = {
      id: lead.id,
      reference: lead.reference,
      account_id: lead.account_id,
      old: lead.status,
      status: v.status,
      action_date: v.action_date ? callBackDate(v.action_date) : null,
      note: v.note || null,
    };
    await core.leads.applyStatusChanges(actor, transaction, [move]);
    await endClaim(sequelize, transaction, lead.id);
    return lead.id;
  });
  core.logger.info({ account_id: actor.accountId, lead_id: leadId, status: v.status }, 'queue outcome set');
  const lead = await core.leads.show(actor, { id: leadId });
  return { lead, order_reference: lead.order_reference };
}

/**
 * Gives back a lead the actor holds: others may take it at once; it comes back to this actor only after
 * QUEUE_CLAIM_SECONDS, whoever takes and gives it back meanwhile.
 */
async function release(core: QueueCore, actor: Actor, key: QueueLeadKey): Promise<{ released: boolean }> {
  authorizeQueueWork(actor);
  const userId = claimant(actor);
  const lead = await findInScope(core.models.Lead, actor, typeof key === 'number' ? { id: key } : key);
  const asker = { accountId: lead.account_id, userId, skipSeconds: core.config.queue.claimSeconds };
  const released = await releaseClaims(core.db.sequelize, undefined, asker, lead.id);
  return { released: released.length > 0 };
}

/** What waits in the account's queue (an admin may name the account). */
async function counts(core: Core, actor: Actor, input?: unknown): Promise<QueueCounts> {
  authorize(actor, 'viewAny', 'lead');
  const accountId = await queueAccount(core, actor, input);
  return countQueue(core.db.sequelize, accountId, core.config.queue);
}

/** The agent work queue (issue 20, docs/api.md "Agent work queue"). */
export function createQueueService(base: Core, deps: { leads: LeadService }) {
  const core: QueueCore = { ...base, leads: deps.leads };
  return {
    next: (actor: Actor, input?: unknown) => next(core, actor, input),
    outcome: (actor: Actor, lead: QueueLeadKey, input: unknown) => outcome(core, actor, lead, input),
    release: (actor: Actor, lead: QueueLeadKey) => release(core, actor, lead),
    counts: (actor: Actor, input?: unknown) => counts(core, actor, input),
    /** The account an admin's queue page opens on (the last one worked) and keeping it: src/queue/queue-account.ts */
    lastAccount: (actor: Actor) => lastQueueAccount(core, actor),
    rememberAccount: (actor: Actor, accountId: number) => rememberQueueAccount(core, actor, accountId),
  };
}

export type QueueService = ReturnType<typeof createQueueService>;
