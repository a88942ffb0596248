import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import type { PreparedLead } from '../../src/leads/lead.check.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';

/** Leads of a lead source (issue 34): the lead list filters by source; the show names the source and its UTM fields. */
const UTM = { utm_source: 'facebook', utm_campaign: 'summer' };

/** A lead as the form endpoint writes it: the system actor of the account, the source named as origin. */
async function sourceLead(acc: TestAccount, sourceId: number, phone: string): Promise<string> {
  const { leads } = getCtx().services;
  const actor = systemActor(acc.id);
  const item = { phone, full_name: 'Amina B', products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }] };
  const { prepared } = await leads.prepareLeads(actor, [item], 'leads', acc.id);
  const [reference] = await getCtx().db.sequelize.transaction((transaction) =>
    leads.insertLeads(actor, prepared as PreparedLead[], {
      transaction,
      accountId: acc.id,
      origin: { sourceId, name: 'Form: Page', utm: UTM, externalId: null },
    }),
  );
  return reference;
}

async function setUp(url: string) {
  const ctx = getCtx();
  const acc = await makeAccount(ctx);
  const source = await ctx.services.sources.create(acc.seller.actor, { kind: 'form', name: 'Page' });
  const other = await ctx.services.sources.create(acc.seller.actor, { kind: 'form', name: 'Other page' });
  const fromSource = await sourceLead(acc, source.id, '0612345601');
  const fromOther = await sourceLead(acc, other.id, '0612345602');
  const line = { sku: acc.skus.active[0], quantity: 1, price: 10 };
  const byRest = await ctx.services.leads.createMany(acc.seller.actor, {
    leads: [{ phone: '0612345603', full_name: 'Karim C', products: [line] }],
  });
  const call = restClient(url, await acc.token(['VIEW LEADS']));
  return { acc, source, other, fromSource, fromOther, restRef: byRest.references[0], call };
}

const refsOf = (body: { data: { reference: string }[] }) => body.data.map((l) => l.reference);

describe('Lead list and show with lead sources', () => {
  const web = useTestServer();

  it('When the REST list is filtered by source_id, Then only that source’s leads, and the links keep the filter', async () => {
    const s = await setUp(web.url);

    const res = await s.call('GET', `/leads?source_id=${s.source.id}`);

    expect(res.status).to.equal(200);
    expect(refsOf(res.body)).to.deep.equal([s.fromSource]);
    expect(res.body.links.first).to.include(`source_id=${s.source.id}`);
    expect(refsOf((await s.call('GET', '/leads')).body)).to.have.members([s.fromSource, s.fromOther, s.restRef]);
  });

  it('When another account’s source is named in the filter, Then nothing of theirs is listed; a bad id is a 422', async () => {
    const a = await setUp(web.url);
    const b = await setUp(web.url);

    expect((await a.call('GET', `/leads?source_id=${b.source.id}`)).body.data).to.deep.equal([]);
    const seller = await login(web.url, a.acc.seller.email, a.acc.seller.password);
    expect((await seller.json('GET', `/leads?source_id=${b.source.id}`)).body.data).to.deep.equal([]);
    expect(refsOf((await seller.json('GET', `/leads?source_id=${a.source.id}`)).body)).to.deep.equal([a.fromSource]);
    for (const bad of ['abc', '0', '-1', '99999999999', '1.5'])
      expect((await a.call('GET', `/leads?source_id=${bad}`)).status, bad).to.equal(422);
  });

  it('When a source’s lead is shown, Then it names its source and UTM fields; a REST lead has none', async () => {
    const s = await setUp(web.url);

    const shown = await s.call('GET', `/leads/${s.fromSource}/show`);
    const rest = await s.call('GET', `/leads/${s.restRef}/show`);

    expect(shown.status).to.equal(200);
    expect(shown.body.data.source).to.deep.equal({ id: s.source.id, kind: 'form', name: 'Page' });
    expect(shown.body.data.utm).to.deep.equal(UTM);
    expect(rest.body.data).to.include({ source: null, utm: null });
  });

  it('When the source is deleted, Then its leads stay and show no source', async () => {
    const s = await setUp(web.url);

    await getCtx().services.sources.remove(s.acc.seller.actor, s.source.id);

    const shown = await s.call('GET', `/leads/${s.fromSource}/show`);
    expect(shown.body.data.source).to.equal(null);
    expect(shown.body.data.utm).to.deep.equal(UTM);
  });
});
