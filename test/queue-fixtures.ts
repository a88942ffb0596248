import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app-context.js';
import type { TestAccount } from './factories.js';

/**
 * One lead to put in a queue: its status, how long ago it was created and last changed (default: now, as a status just
 * set), and its action date from now (minutes).
 */
export interface QueuedLeadSpec {
  status: string;
  createdMinutesAgo?: number;
  changedMinutesAgo?: number;
  actionInMinutes?: number | null;
}

const phone = () => `+2126${crypto.randomInt(10_000_000, 99_999_999)}`;

/**
 * Leads of `acc` created through the lead service, then given their status, creation time and action date in SQL
 * (setup only: the queue reads those columns). Answers their ids and references in `specs` order.
 */
export async function seedQueue(ctx: AppContext, acc: TestAccount, specs: QueuedLeadSpec[]) {
  const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
    leads: specs.map((_, i) => ({
      phone: phone(),
      full_name: `Queued Customer ${i}`,
      city: 'Rabat',
      products: [{ sku: acc.skus.active[1], quantity: 1, price: 200 }],
    })),
  });
  const rows = await ctx.db.sequelize.query<{ id: string; reference: string }>(
    `UPDATE leads l SET status = v.status, created_at = now() - make_interval(mins => v.ago),
            updated_at = now() - make_interval(mins => v.changed),
            action_date = CASE WHEN v.act IS NULL THEN NULL ELSE now() + make_interval(mins => v.act) END
       FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $6::int[]) AS v(reference, status, ago, act, changed)
      WHERE l.account_id = $5 AND l.reference = v.reference
      RETURNING l.id, l.reference`,
    {
      bind: [
        references,
        specs.map((s) => s.status),
        specs.map((s, i) => s.createdMinutesAgo ?? 1000 - i),
        specs.map((s) => s.actionInMinutes ?? null),
        acc.id,
        specs.map((s) => s.changedMinutesAgo ?? 0),
      ],
      type: QueryTypes.SELECT,
    },
  );
  const byRef = new Map(rows.map((r) => [r.reference, Number(r.id)]));
  return references.map((reference) => ({ reference, id: byRef.get(reference)! }));
}

/** Moves the claim of a lead `seconds` into the past: it lapsed that long ago. */
export async function lapseClaim(ctx: AppContext, leadId: number, seconds = 1): Promise<void> {
  await ctx.db.sequelize.query(
    `UPDATE lead_claims SET claimed_at = least(claimed_at, now() - make_interval(secs => $2 + 1)),
            expires_at = now() - make_interval(secs => $2) WHERE lead_id = $1`,
    { bind: [leadId, seconds] },
  );
}

/** Moves every give-back of the account `seconds` into the past: they run out that much earlier. */
export async function ageGiveBacks(ctx: AppContext, accountId: number, seconds: number): Promise<void> {
  await ctx.db.sequelize.query(
    'UPDATE lead_give_backs SET until = until - make_interval(secs => $2) WHERE account_id = $1',
    { bind: [accountId, seconds] },
  );
}

/** Every give-back row of an account: lead and user, and whether it still keeps the lead away from the user. */
export function giveBacksOf(ctx: AppContext, accountId: number) {
  return ctx.db.sequelize.query<{ lead_id: number; user_id: number; running: boolean }>(
    `SELECT lead_id, user_id, until > now() AS running FROM lead_give_backs
      WHERE account_id = $1 ORDER BY lead_id, user_id`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

/** Every claim row of an account: lead, user and whether it is live. */
export function claimsOf(ctx: AppContext, accountId: number) {
  return ctx.db.sequelize.query<{ lead_id: string; user_id: number; live: boolean }>(
    'SELECT lead_id, user_id, expires_at > now() AS live FROM lead_claims WHERE account_id = $1 ORDER BY lead_id',
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

/** The history rows of a lead, oldest first, with their notes. */
export function historyOf(ctx: AppContext, leadId: number) {
  return ctx.db.sequelize.query<{ old_status: string | null; new_status: string; note: string | null }>(
    'SELECT old_status, new_status, note FROM lead_histories WHERE lead_id = $1 ORDER BY id',
    { bind: [leadId], type: QueryTypes.SELECT },
  );
}
