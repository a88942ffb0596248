import type { Core } from '../context.js';
import {
  claimInAccount,
  dueAccounts,
  servingOrder,
  type ClaimedDelivery,
  type ClaimLimits,
  type DueAccount,
} from './webhook-claim.js';

/**
 * The slots of a delivery run (src/webhooks/webhook-sender.ts deliverDue): which account's delivery a free slot takes
 * (round-robin, the per-account cap), and how long a slot stays taken (a slow or dead receiver leaves it).
 */

/** While sends are in flight, a run looks for new work this often (and whenever a send ends). */
export const POLL_MS = 100;

/** A send taking longer than this leaves its slot to others while it waits (see Slots.free). */
const PARK_MS = 1000;

/** Sends one run may have going at once, counting those waiting on slow receivers: this × WEBHOOK_CONCURRENCY. */
const PARKED_FACTOR = 4;

/** The account this process served last: the round-robin goes on from there, run after run. */
const rotation = { last: 0 };

/** The accounts with due work as last read (every POLL_MS at most), with their attempts in flight (all workers). */
export interface Schedule {
  accounts: Map<number, DueAccount>;
  readAt: number;
}

/**
 * Claims due deliveries into the free slots, round-robin across accounts (fewest in flight first; an account at
 * WEBHOOK_ACCOUNT_IN_FLIGHT is skipped), one per account per turn; `start` begins each send at once.
 * Answers how many were claimed.
 */
export async function fillSlots(
  core: Core,
  limits: ClaimLimits,
  free: () => number,
  schedule: Schedule,
  start: (d: ClaimedDelivery) => void,
): Promise<number> {
  if (Date.now() - schedule.readAt >= POLL_MS) {
    const due = await dueAccounts(core.db.sequelize);
    schedule.accounts = new Map(due.map((a) => [a.account_id, a]));
    schedule.readAt = Date.now();
  }
  let open = servingOrder([...schedule.accounts.values()], limits.perAccount, rotation.last);
  let claimed = 0;
  while (open.length && free() > 0) {
    const again = [];
    for (const a of open) {
      if (free() <= 0) break;
      const d = await claimInAccount(core.db.sequelize, a.account_id, limits);
      if (!d) {
        // nothing to take there now (or its cap is held by other workers): skipped until a send of it ends here, or
        // the next read
        a.in_flight = limits.perAccount;
        continue;
      }
      start(d);
      claimed++;
      rotation.last = a.account_id;
      if (++a.in_flight < limits.perAccount) again.push(a);
    }
    open = again;
  }
  return claimed;
}

/**
 * The sends of one run: each slot sends a delivery, then goes on with the same account's next one while no other
 * account waits for a slot (the throughput of a lone backlog); when one does, the slot goes back to the round-robin.
 */
export class Slots {
  readonly inFlight = new Set<Promise<void>>();
  /** When each lane's current send started. */
  private readonly lanes = new Set<{ since: number }>();
  sent = 0;
  failure: { err: unknown } | null = null;
  /** A send ended since the loop last looked (it goes round again at once instead of sleeping). */
  freed = false;
  wake = () => {};

  constructor(
    private readonly core: Core,
    /** Sends one delivery and records the outcome. */
    private readonly send: (d: ClaimedDelivery) => Promise<void>,
    private readonly limits: ClaimLimits,
    private readonly schedule: Schedule,
    private readonly until: number,
  ) {}

  private async next(d: ClaimedDelivery): Promise<ClaimedDelivery | null> {
    if (this.failure || Date.now() >= this.until) return null;
    const waiting = [...this.schedule.accounts.values()].some(
      (a) => a.account_id !== d.account_id && a.in_flight < this.limits.perAccount,
    );
    return waiting ? null : claimInAccount(this.core.db.sequelize, d.account_id, this.limits);
  }

  /**
   * Slots free for a new send: WEBHOOK_CONCURRENCY less the sends started within PARK_MS. A send that takes longer (a
   * slow or dead receiver, already held to its account's cap) leaves its slot to others while it waits, up to
   * PARKED_FACTOR × WEBHOOK_CONCURRENCY sends in all: accounts with dead receivers cannot fill every slot.
   */
  free(): number {
    const concurrency = this.core.config.webhookConcurrency;
    const now = Date.now();
    const busy = [...this.lanes].filter((l) => now - l.since < PARK_MS).length;
    return Math.min(concurrency - busy, concurrency * PARKED_FACTOR - this.lanes.size);
  }

  start(first: ClaimedDelivery): void {
    const lane = { since: Date.now() };
    this.lanes.add(lane);
    const p: Promise<void> = (async () => {
      for (let d: ClaimedDelivery | null = first; d; d = await this.next(d)) {
        lane.since = Date.now();
        await this.send(d);
        this.sent++;
      }
    })()
      .catch((err: unknown) => void (this.failure ??= { err }))
      .finally(() => {
        const a = this.schedule.accounts.get(first.account_id);
        if (a && a.in_flight > 0) a.in_flight--;
        this.lanes.delete(lane);
        this.inFlight.delete(p);
        this.freed = true;
        this.wake();
      });
    this.inFlight.add(p);
  }

  /** Until a send ends, or `ms`. */
  pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      setTimeout(resolve, ms).unref();
    });
  }
}
