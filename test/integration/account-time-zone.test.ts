import { expect } from 'chai';
import pg from 'pg';
import { systemActor } from '../../src/actor.js';
import { ValidationError, NotFoundError, ForbiddenError } from '../../src/errors.js';
import { down, up } from '../../migrations/20261205000000-account-time-zone.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, uid } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login } from '../session.js';
import { restClient } from '../rest-client.js';

const sys = systemActor();
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('account time zone (docs/decisions.md, "Time zones")', function () {
  this.timeout(120_000);

  it('When an account is created, Then its zone comes from its phone country (MA, FR; UTC for a country not listed)', async () => {
    const { accounts } = getCtx().services;
    const ma = await accounts.createAccount(sys, { name: `Zone MA ${uid()}` });
    const fr = await accounts.createAccount(sys, { name: `Zone FR ${uid()}`, phone_country: 'FR' });
    const jp = await accounts.createAccount(sys, { name: `Zone JP ${uid()}`, phone_country: 'JP' });
    const chosen = await accounts.createAccount(sys, { name: `Zone X ${uid()}`, time_zone: 'Africa/Dakar' });
    expect([ma.time_zone, fr.time_zone, jp.time_zone, chosen.time_zone]).to.deep.equal([
      'Africa/Casablanca',
      'Europe/Paris',
      'UTC',
      'Africa/Dakar',
    ]);
  });

  it('When the migration runs over existing accounts, Then each gets its phone country zone and the column is NOT NULL', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    await ctx.models.Account.update({ phone_country: 'TN' }, { where: { id: acc.id } });
    await down({ name: 'down', context: ctx.db.sequelize });
    await up({ name: 'up', context: ctx.db.sequelize });
    expect((await ctx.models.Account.findByPk(acc.id))!.time_zone).to.equal('Africa/Tunis');
    const [col] = (await ctx.db.sequelize.query(
      "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'time_zone'",
      { plain: false, raw: true },
    )) as unknown as [{ is_nullable: string }[]];
    expect(col[0].is_nullable).to.equal('NO');
  });

  it('When a zone is changed, Then only a known IANA name is kept, by the seller of the account (an agent or another seller is refused)', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const { accounts } = ctx.services;
    const updated = await accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: 'Europe/Paris' });
    expect(updated.time_zone).to.equal('Europe/Paris');
    const bad = await refusal(accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: 'Mars/Olympus' }));
    expect(bad).to.be.instanceOf(ValidationError);
    expect((bad as ValidationError).errors.time_zone[0]).to.match(/time zone such as Africa\/Casablanca/);
    expect(await refusal(accounts.updateAccount(acc.agent.actor, acc.id, { time_zone: 'UTC' }))).to.be.instanceOf(
      ForbiddenError,
    );
    expect(await refusal(accounts.updateAccount(acc.seller.actor, other.id, { time_zone: 'UTC' }))).to.be.instanceOf(
      NotFoundError,
    );
    expect((await ctx.models.Account.findByPk(acc.id))!.time_zone).to.equal('Europe/Paris');
    expect((await ctx.models.Account.findByPk(other.id))!.time_zone).to.equal('Africa/Casablanca');
  });

  describe('through the panel', () => {
    let web: Awaited<ReturnType<typeof startTestServer>>;
    before(async () => {
      web = await startTestServer();
    });
    after(async () => {
      await web.close();
    });

    it("When a seller edits the account's zone in the panel, Then it is saved; a bad one is refused under the field in words and nothing is saved", async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const c = await login(web.url, acc.seller.email, acc.seller.password);
      const edit = async (json: Record<string, string>) => {
        const res = await c.fetch(`/admin/api/resources/accounts/records/${acc.id}/edit`, {
          method: 'POST',
          json,
          headers: { origin: web.url },
        });
        return { status: res.status, body: await res.json() };
      };
      const bad = await edit({ name: acc.name, time_zone: 'Nowhere/Land' });
      expect(bad.body.record.errors.time_zone.message).to.equal(
        'Time zone must be a time zone such as Africa/Casablanca or Europe/Paris.',
      );
      expect(bad.body.record.params, 'the stored values do not come back over the typed ones').to.deep.equal({});
      expect((await ctx.models.Account.findByPk(acc.id))!.time_zone).to.equal('Africa/Casablanca');
      const ok = await edit({ name: acc.name, time_zone: 'Africa/Algiers' });
      expect(ok.body.notice.type).to.equal('success');
      expect((await ctx.models.Account.findByPk(acc.id))!.time_zone).to.equal('Africa/Algiers');
    });

    it("When another request holds seller A's account row (an import), Then A's 30 zone saves at once are refused within seconds (try again, or over the account's budget), and seller B's writes go on meanwhile", async () => {
      const ctx = getCtx();
      const [a, b] = [await makeAccount(ctx), await makeAccount(ctx)];
      const c = await login(web.url, a.seller.email, a.seller.password);
      const rest = restClient(web.url, await b.token(['CREATE LEADS']));
      const holder = new pg.Client({ connectionString: ctx.db.url });
      await holder.connect();
      try {
        // as a lead write of A's holds it (FOR KEY SHARE, which a zone change's FOR UPDATE waits for)
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM accounts WHERE id = $1 FOR KEY SHARE', [a.id]);
        const zones = ['Europe/Paris', 'Africa/Algiers', 'UTC'];
        const saves = Array.from({ length: 30 }, (_, i) =>
          c
            .fetch(`/admin/api/resources/accounts/records/${a.id}/edit`, {
              method: 'POST',
              json: { name: a.name, time_zone: zones[i % 3] },
              headers: { origin: web.url },
            })
            .then(async (res) => ({ status: res.status, body: await res.json() })),
        );
        // B writes while A's saves wait: before, every pool connection waited on A's row and B's write with them
        const written = await rest('POST', '/leads', {
          leads: [
            {
              phone: '+212612345678',
              full_name: 'Other Tenant',
              city: 'Fes',
              products: [{ sku: b.skus.active[0], quantity: 1, price: 100 }],
            },
          ],
        });
        expect(written.status, JSON.stringify(written.body)).to.equal(201);
        const answers = await Promise.all(saves);
        // each refused: waited out its lock timeout, or over ACCOUNT_SETTINGS_PER_MINUTE (20) before any work
        const busy = 'The account is being written to (another save or an import); try again in a moment.';
        const spent = "Too many saves of this account's settings. Please wait a minute.";
        for (const ans of answers) {
          expect(ans.status).to.equal(200);
          expect(ans.body.notice.type, JSON.stringify(ans.body)).to.equal('error');
          expect([busy, spent], JSON.stringify(ans.body)).to.include(ans.body.notice.message);
        }
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect((await ctx.models.Account.findByPk(a.id))!.time_zone, 'nothing saved').to.equal('Africa/Casablanca');
      // once the row is free, a save goes through and marks the account's days for the fold (jobs/kpi.job.ts); the
      // seller may have spent the minute's budget, the CLI (system) is not counted
      await ctx.services.accounts.updateAccount(sys, a.id, { time_zone: 'Europe/Paris' });
      expect((await ctx.models.Account.findByPk(a.id))!.time_zone).to.equal('Europe/Paris');
    });

    it("When an account has spent ACCOUNT_SETTINGS_PER_MINUTE saves, Then its seller's and an admin's next saves are refused in the user's words before any work, another account saves, and the CLI is not counted", async () => {
      const ctx = getCtx();
      const [a, b] = [await makeAccount(ctx), await makeAccount(ctx)];
      const admin = await makeAdmin(ctx);
      await ctx.services.accounts.setLanguage(a.seller.actor, 'fr');
      const edit = async (user: { email: string; password: string }, id: number, json: Record<string, string>) => {
        const c = await login(web.url, user.email, user.password);
        const res = await c.fetch(`/admin/api/resources/accounts/records/${id}/edit`, {
          method: 'POST',
          json,
          headers: { origin: web.url },
        });
        return { status: res.status, body: await res.json() };
      };
      // A's budget spent in a minute that has not ended (a later one, so that the clock's minute cannot turn meanwhile)
      await ctx.db.sequelize.query(
        `INSERT INTO account_settings_saves (account_id, minute, saves)
         VALUES (${a.id}, date_trunc('minute', now()) + interval '5 minutes', ${ctx.config.accountSettingsPerMinute})`,
      );
      const seller = await edit(a.seller, a.id, { name: a.name, time_zone: 'Europe/Paris' });
      expect(seller.body.notice, JSON.stringify(seller.body)).to.deep.include({
        type: 'error',
        message: "Trop d'enregistrements des réglages de ce compte. Veuillez patienter une minute.",
      });
      const byAdmin = await edit(admin, a.id, { name: a.name, time_zone: 'Europe/Paris' });
      expect(byAdmin.body.notice.message).to.equal("Too many saves of this account's settings. Please wait a minute.");
      expect((await ctx.models.Account.findByPk(a.id))!.time_zone, 'nothing saved').to.equal('Africa/Casablanca');
      const other = await edit(b.seller, b.id, { name: b.name, time_zone: 'Europe/Paris' });
      expect(other.body.notice.type, JSON.stringify(other.body)).to.equal('success');
      await ctx.services.accounts.updateAccount(sys, a.id, { time_zone: 'UTC' });
      expect((await ctx.models.Account.findByPk(a.id))!.time_zone).to.equal('UTC');
      const [counted] = (await ctx.db.sequelize.query(
        `SELECT saves FROM account_settings_saves WHERE account_id = ${a.id}`,
        { raw: true },
      )) as unknown as [{ saves: number }[]];
      expect(counted[0].saves, 'the two refused saves counted, the CLI not').to.equal(
        ctx.config.accountSettingsPerMinute + 2,
      );
      expect((await ctx.metrics.render()).body).to.match(/limiter="settings"\} [1-9]/);
    });

    it("When a list is filtered by days, Then the days are the account zone's (Paris: 30 Jun 22:30 UTC is 1 July)", async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      await ctx.services.accounts.updateAccount(acc.seller.actor, acc.id, { time_zone: 'Europe/Paris' });
      const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
        leads: ['Early July', 'Late July 1', 'July 2'].map((full_name, i) => ({
          phone: `+2126700100${10 + i}`,
          full_name,
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
        })),
      });
      const at = ['2026-06-30T22:30:00Z', '2026-07-01T21:30:00Z', '2026-07-01T22:30:00Z'];
      for (const [i, reference] of references.entries())
        await ctx.models.Lead.update({ created_at: new Date(at[i]) }, { where: { reference }, silent: true });
      const c = await login(web.url, acc.seller.email, acc.seller.password);
      const list = await c.json(
        'GET',
        '/admin/api/resources/leads/actions/list?filters.created_at~~from=2026-07-01&filters.created_at~~to=2026-07-01',
      );
      const names = list.body.records.map((r: { params: { full_name: string } }) => r.params.full_name).sort();
      expect(names).to.deep.equal(['Early July', 'Late July 1']);
      const shown = JSON.parse(list.body.records[0].params.zoned_times);
      expect(shown.zone).to.equal('Europe/Paris');
      expect(shown.times.created_at.text).to.match(/^(1|2) Jul 2026, \d\d:30 \(Europe\/Paris\)$/);
    });
  });
});
