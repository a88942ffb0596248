import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, panelApi } from '../session.js';

/** The panel's Lead sources and Intake log (docs/lead-sources.md "In the panel"): writes, tenancy, the kept 30 days. */
type Rec = { params: Record<string, unknown> };

const sourcesOf = (accountId: number) =>
  getCtx().db.sequelize.query<{ kind: string; name: string; allowed_origins: string[]; signing_secret: string | null }>(
    'SELECT kind, name, allowed_origins, signing_secret FROM lead_sources WHERE account_id = $1 ORDER BY id',
    { bind: [accountId], type: QueryTypes.SELECT },
  );

/** An intake entry of a source received `daysAgo` days ago. */
async function intakeEntry(acc: TestAccount, sourceId: number, daysAgo: number, reason: string) {
  await getCtx().models.LeadIntake.create({
    account_id: acc.id,
    source_id: sourceId,
    outcome: 'refused',
    reason,
    received_at: new Date(Date.now() - daysAgo * 86_400_000),
    payload: { full_name: '<b>Amina</b>' },
  });
}

describe('panel: Lead sources and Intake log', () => {
  const web = useTestServer();

  it('When a seller creates a form source in the panel, Then it is their account’s whatever account_id is posted, and its page shows the snippet', async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const made = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'form',
      name: 'Summer page',
      'allowed_origins.0': 'https://shop.example',
      thank_you_url: 'https://shop.example/thanks',
      active: 'true',
      account_id: String(other.id),
    });

    expect(made.status).to.equal(200);
    expect(await sourcesOf(acc.id)).to.deep.equal([
      { kind: 'form', name: 'Summer page', allowed_origins: ['https://shop.example'], signing_secret: null },
    ]);
    expect(await sourcesOf(other.id)).to.deep.equal([]);
    const id = made.body.record.params.id;
    const shown = await panelApi(c, web.url, 'GET', `lead_sources/records/${id}/show`);
    expect(shown.body.record.params.snippet).to.include('<form class="leadflow-form"');
    expect(shown.body.record.params.intake_url).to.match(/\/intake\/forms\//);
    // no default products: it cannot price a lead (issue 41, test/integration/source-products-panel.test.ts)
    expect(JSON.parse(shown.body.record.params.health)).to.deep.equal({
      state: 'no_products',
      received_24h: 0,
      refused_24h: 0,
    });
    expect(shown.body.record.params.intake_log).to.equal(`/admin/resources/lead_intake?filters.source_id=${id}`);
  });

  it('When a shop source is created and edited, Then its signing secret is stored and never in a list, page or form answer', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const secret = 'shpss_0123456789abcdef0123456789abcdef';

    const made = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'shopify',
      name: 'My shop',
      signing_secret: secret,
    });
    const id = made.body.record.params.id;
    const edited = await panelApi(c, web.url, 'POST', `lead_sources/records/${id}/edit`, {
      name: 'My Shopify shop',
      'allowed_origins.0': 'https://a.example',
    });
    const answers = [
      made,
      edited,
      await panelApi(c, web.url, 'GET', 'lead_sources/actions/list'),
      await panelApi(c, web.url, 'GET', `lead_sources/records/${id}/show`),
      await panelApi(c, web.url, 'GET', `lead_sources/records/${id}/edit`),
    ];

    expect((await sourcesOf(acc.id))[0]).to.include({ name: 'My Shopify shop', signing_secret: secret });
    for (const a of answers) expect(a.text).to.not.include(secret.slice(6));
    const shown = answers[3].body.record.params;
    expect(shown).to.include({ signing_secret_state: 'set', signing_secret_hint: '••••cdef', snippet: '' });
  });

  it('When an origin is not an origin, Then the error is under the field and nothing is stored', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const refused = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'form',
      name: 'Bad origins',
      'allowed_origins.0': 'https://shop.example/landing',
    });
    const secretOnForm = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'form',
      name: 'Signed form',
      signing_secret: 'abcdefgh12345678',
    });

    expect(Object.keys(refused.body.record.errors)).to.deep.equal(['allowed_origins.0']);
    expect(refused.body.record.errors['allowed_origins.0'].message).to.match(/must be an origin/);
    expect(Object.keys(secretOnForm.body.record.errors)).to.deep.equal(['signing_secret']);
    expect(await sourcesOf(acc.id)).to.deep.equal([]);
  });

  it('When an admin creates a source, Then the account must be chosen, and the source is that account’s', async () => {
    const acc = await makeAccount(getCtx());
    const admin = await makeAdmin(getCtx());
    const c = await login(web.url, admin.email, admin.password);

    const unchosen = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', { kind: 'form', name: 'Page' });
    const chosen = await panelApi(c, web.url, 'POST', 'lead_sources/actions/new', {
      kind: 'form',
      name: 'Page',
      account_id: String(acc.id),
    });

    expect(Object.keys(unchosen.body.record.errors)).to.deep.equal(['account_id']);
    expect(chosen.body.record.params).to.include({ account_id: acc.id, name: 'Page' });
    expect((await sourcesOf(acc.id)).map((s) => s.name)).to.deep.equal(['Page']);
  });

  it('When a seller names another account’s source in the panel, Then it is not found, not changed and not deleted', async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    const theirs = await getCtx().services.sources.create(other.seller.actor, { kind: 'form', name: 'Theirs' });
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const shown = await panelApi(c, web.url, 'GET', `lead_sources/records/${theirs.id}/show`);
    await panelApi(c, web.url, 'POST', `lead_sources/records/${theirs.id}/edit`, { name: 'Mine now' });
    await panelApi(c, web.url, 'POST', `lead_sources/records/${theirs.id}/delete`);
    const log = await panelApi(c, web.url, 'GET', `lead_intake/actions/list?filters.source_id=${theirs.id}`);

    expect(shown.text).to.not.include('Theirs');
    expect(log.body.records).to.deep.equal([]);
    expect((await sourcesOf(other.id)).map((s) => s.name)).to.deep.equal(['Theirs']);
  });

  it('When the intake log is listed, Then only the own account’s entries of the last 30 days, filtered by source, with the payload as text', async () => {
    const acc = await makeAccount(getCtx());
    const other = await makeAccount(getCtx());
    const { sources } = getCtx().services;
    const page = await sources.create(acc.seller.actor, { kind: 'form', name: 'Page' });
    const second = await sources.create(acc.seller.actor, { kind: 'form', name: 'Second' });
    const theirs = await sources.create(other.seller.actor, { kind: 'form', name: 'Theirs' });
    await intakeEntry(acc, page.id, 29, 'recent');
    await intakeEntry(acc, page.id, 31, 'too old');
    await intakeEntry(acc, second.id, 1, 'second');
    await intakeEntry(other, theirs.id, 1, 'foreign');
    const old = await getCtx().models.LeadIntake.findOne({ where: { reason: 'too old', account_id: acc.id } });
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const reasons = (r: { body: { records: Rec[] } }) => r.body.records.map((x) => x.params.reason);

    const all = await panelApi(c, web.url, 'GET', 'lead_intake/actions/list?perPage=100');
    const bySource = await panelApi(c, web.url, 'GET', `lead_intake/actions/list?filters.source_id=${page.id}`);
    const refused = await panelApi(c, web.url, 'GET', 'lead_intake/actions/list?filters.outcome=refused');
    const oldPage = await panelApi(c, web.url, 'GET', `lead_intake/records/${old!.id}/show`);
    const shown = await panelApi(c, web.url, 'GET', `lead_intake/records/${all.body.records[0].params.id}/show`);

    expect(reasons(all)).to.have.members(['recent', 'second']);
    expect(reasons(bySource)).to.deep.equal(['recent']);
    expect(reasons(refused)).to.have.members(['recent', 'second']);
    expect(all.body.records[0].populated.source_id.title).to.be.oneOf(['Page', 'Second']);
    expect(oldPage.text).to.not.include('too old');
    expect(JSON.parse(shown.body.record.params.payload_text)).to.deep.equal({ full_name: '<b>Amina</b>' });
  });

  it('When a French-speaking seller reads the intake log, Then its reasons are in French on the list and the entry', async () => {
    const acc = await makeAccount(getCtx());
    const page = await getCtx().services.sources.create(acc.seller.actor, { kind: 'form', name: 'Page' });
    await intakeEntry(acc, page.id, 1, 'This page may not send to this form.');
    await getCtx().db.sequelize.query("UPDATE users SET language = 'fr' WHERE id = $1", { bind: [acc.seller.id] });
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const list = await panelApi(c, web.url, 'GET', 'lead_intake/actions/list');
    const [entry] = list.body.records as Rec[];
    const shown = await panelApi(c, web.url, 'GET', `lead_intake/records/${entry.params.id}/show`);
    const french = "Envoyé depuis une page que ce formulaire n'autorise pas";
    expect(entry.params.reason).to.equal(french);
    expect(shown.body.record.params.reason).to.equal(french);
  });

  it('When the intake log is written to in the panel, Then there is no action to do it', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const made = await panelApi(c, web.url, 'POST', 'lead_intake/actions/new', { reason: 'forged' });
    expect(made.status === 403 || made.body?.record?.baseError?.type === 'ForbiddenError').to.equal(true);
    const { builtPanel } = await import('../../admin/admin.js');
    const actions = builtPanel()!.findResource('lead_intake').decorate().actions;
    const open = ['new', 'edit', 'delete', 'bulkDelete'].filter((a) => actions[a]?.isAccessible(undefined as never));
    expect(open).to.deep.equal([]);
  });

  it('When a seller or an agent filters the panel’s leads by source, Then only that source’s leads; the agent reads source names only', async () => {
    const acc = await makeAccount(getCtx());
    const ctx = getCtx();
    const source = await ctx.services.sources.create(acc.seller.actor, {
      kind: 'form',
      name: 'Page',
      allowed_origins: ['https://shop.example'],
    });
    const line = { sku: acc.skus.active[0], quantity: 1, price: 10 };
    const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        { phone: '0612345601', full_name: 'From the form', products: [line] },
        { phone: '0612345602', full_name: 'By hand', products: [line] },
      ],
    });
    await ctx.models.Lead.update({ source_id: source.id }, { where: { reference: references[0] } });

    for (const user of [acc.seller, acc.agent]) {
      const c = await login(web.url, user.email, user.password);
      const list = await panelApi(c, web.url, 'GET', `leads/actions/list?filters.source_id=${source.id}`);
      expect(list.body.records.map((r: Rec) => r.params.full_name)).to.deep.equal(['From the form']);
      const choices = await panelApi(c, web.url, 'GET', 'lead_sources/actions/search/Pa');
      expect(choices.body.records.map((r: Rec) => r.params.name)).to.deep.equal(['Page']);
      if (user === acc.agent) {
        expect(Object.keys(choices.body.records[0].params).sort()).to.deep.equal(['id', 'name']);
        expect((await panelApi(c, web.url, 'GET', 'lead_sources/actions/list')).text).to.not.include('shop.example');
      }
    }
  });
});
