import { expect } from 'chai';
import fc from 'fast-check';
import { statusFor } from '../../http/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { claimsOf, seedQueue } from '../queue-fixtures.js';

const SEED = 20261128;
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);

const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '\u0000', '\ud800', 'x'.repeat(5000), '2026-02-31T10:00:00+00:00', '9999-12-31T23:59:59Z'),
  fc.constantFrom('confirmed', 'call_later', 'wrong', 'no_answer', 'canceled', 'new'),
);
const oddValue = fc.oneof(
  oddString,
  fc.double(),
  fc.integer(),
  fc.constantFrom(2 ** 31, -1, 0, Infinity, Number.MAX_VALUE, null, true, [], {}),
  fc.array(oddString, { maxLength: 3 }),
);
const oddInput = fc.oneof(
  fc.record({ status: oddValue, note: oddValue, action_date: oddValue, account_id: oddValue }, { requiredKeys: [] }),
  fc.dictionary(oddString, oddValue, { maxKeys: 4 }),
  oddValue,
);

describe('Agent work queue: generated input', () => {
  it('answers any input to next, counts and outcome with a 4xx error or a result, never a server error', async function () {
    this.timeout(120_000);
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const [lead] = await seedQueue(ctx, acc, [{ status: 'new' }]);
    const { queue } = ctx.services;
    const outcomeOf = async (input: unknown) => {
      // the agent holds the lead before each outcome, so an accepted one is applied
      await queue.next(acc.agent.actor);
      return queue.outcome(acc.agent.actor, lead.id, input);
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('next', 'counts', 'outcome'), oddInput, async (method, input) => {
        const call = method === 'next' ? queue.next : method === 'counts' ? queue.counts : outcomeOf;
        try {
          await call(acc.agent.actor, input);
        } catch (err) {
          expect(statusFor(err), `${method} ${JSON.stringify(input)}: ${(err as Error).message}`).to.be.within(
            400,
            499,
          );
        }
        // put the lead back where the queue finds it
        await ctx.models.Lead.update({ status: 'new' }, { where: { id: lead.id } });
      }),
      { seed: SEED, numRuns: 300 * SCALE },
    );
    expect((await claimsOf(ctx, acc.id)).filter((c) => c.live).length).to.be.at.most(1);
  });
});
