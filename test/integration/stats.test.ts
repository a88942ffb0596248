import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin } from '../factories.js';

describe('dashboard figures', () => {
  it("counts the account's leads by status today and over 7 days, the confirmation rate and orders by status", async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const lead = (i: number) => ({
      // a possible Moroccan mobile (9 national digits) whatever the account id: an impossible one would be `wrong`
      phone: `+2126${String(acc.id * 10 + i)
        .padStart(8, '0')
        .slice(-8)}`,
      full_name: `Figure ${i}`,
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    });
    const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [lead(1), lead(2), lead(3), lead(4)],
    });
    await ctx.services.leads.createMany(other.seller.actor, {
      leads: [
        {
          phone: '+212650000999',
          full_name: 'Other Account',
          products: [{ sku: other.skus.active[0], quantity: 1, price: 10 }],
        },
      ],
    });
    await ctx.services.leads.updateStatuses(acc.seller.actor, {
      leads: [
        { reference: references[0], status: 'confirmed' },
        { reference: references[1], status: 'wrong' },
      ],
    });
    await ctx.models.Lead.update(
      { created_at: new Date(Date.now() - 3 * 86_400_000) },
      { where: { reference: references[3] } },
    );
    await ctx.models.Lead.update(
      { created_at: new Date(Date.now() - 10 * 86_400_000) },
      { where: { reference: references[2] } },
    );
    const f = await ctx.services.stats.dashboard(acc.agent.actor);
    expect(f.leadsToday).to.include({ confirmed: 1, wrong: 1, new: 0 });
    expect(f.leads7d).to.include({ confirmed: 1, wrong: 1, new: 1 });
    expect(f.confirmationRate7d).to.equal(33.3);
    expect(f.ordersByStatus).to.include({ new: 1, pushed: 0 });
    const all = await ctx.services.stats.dashboard((await makeAdmin(ctx)).actor);
    expect(Object.values(all.leads7d).reduce((a, b) => a + b, 0)).to.be.greaterThan(3);
  });
});
