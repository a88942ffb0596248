import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login } from '../session.js';

async function seedLeads(acc: TestAccount, n: number): Promise<string[]> {
  const { references } = await getCtx().services.leads.createMany(acc.seller.actor, {
    leads: Array.from({ length: n }, (_, i) => ({
      // a possible Moroccan mobile (9 national digits) whatever the account id
      phone: `+2126${String(acc.id % 100).padStart(2, '0')}${String(i).padStart(6, '0')}`,
      full_name: `Customer ${i}`,
      city: 'Rabat',
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 100 }],
    })),
  });
  return references;
}

const idOf = async (reference: string) => (await getCtx().models.Lead.findOne({ where: { reference } }))!.id;

describe('dashboard routes', () => {
  const web = useTestServer();

  it("lists only the seller's own leads, with filters and perPage; the admin sees every account and can pick one", async () => {
    const a = await makeAccount(getCtx());
    const b = await makeAccount(getCtx());
    const aRefs = await seedLeads(a, 3);
    await seedLeads(b, 2);
    await getCtx().services.leads.updateStatuses(a.seller.actor, { leads: [{ reference: aRefs[0], status: 'wrong' }] });
    const seller = await login(web.url, a.seller.email, a.seller.password);
    const own = await seller.json('GET', '/leads?perPage=2');
    expect(own.status).to.equal(200);
    expect(own.body.meta).to.include({ total: 3, per_page: 2, last_page: 2 });
    expect(
      (await seller.json('GET', '/leads?status=wrong')).body.data.map((l: { reference: string }) => l.reference),
    ).to.deep.equal([aRefs[0]]);
    expect((await seller.json(`GET`, `/leads?account_id=${b.id}`)).body.meta.total).to.equal(3);
    expect((await seller.json('GET', '/leads?search=customer%202')).body.meta.total).to.equal(1);
    expect((await seller.json('GET', '/leads?perPage=101')).status).to.equal(422);

    const admin = await makeAdmin(getCtx());
    const adm = await login(web.url, admin.email, admin.password);
    const all = await adm.json('GET', '/leads?perPage=100');
    const accounts = new Set(all.body.data.map((l: { account_id: number }) => l.account_id));
    expect(accounts.has(a.id) && accounts.has(b.id)).to.equal(true);
    expect((await adm.json('GET', `/leads?account_id=${b.id}`)).body.meta.total).to.equal(2);
  });

  it("shows full details of an own lead and answers 404 for another account's id", async () => {
    const a = await makeAccount(getCtx());
    const b = await makeAccount(getCtx());
    const [ref] = await seedLeads(a, 1);
    const [otherRef] = await seedLeads(b, 1);
    const c = await login(web.url, a.agent.email, a.agent.password);
    const show = await c.json('GET', `/leads/${await idOf(ref)}/show`);
    expect(show.status).to.equal(200);
    expect(show.body.data).to.include({ reference: ref, status: 'new' });
    expect(show.body.data.products).to.have.length(1);
    expect(show.body.data.history).to.have.length(1);
    expect((await c.json('GET', `/leads/${await idOf(otherRef)}/show`)).status).to.equal(404);
    expect((await c.json('GET', '/leads/abc/show')).status).to.equal(404);
  });

  it('creates a lead whose phone is unique in the account and rejects a phone already used', async () => {
    const a = await makeAccount(getCtx());
    const b = await makeAccount(getCtx());
    const c = await login(web.url, a.seller.email, a.seller.password);
    const city = await getCtx().models.City.create({ name: `Town ${a.id}` });
    const res = await c.json('POST', '/leads/store', {
      name: '+212 612 000 111',
      status: 'new',
      full_name: 'Walk In',
      city_id: city.id,
    });
    expect(res.status).to.equal(201);
    expect(res.body.data).to.include({ phone: '+212 612 000 111', status: 'new', city: `Town ${a.id}` });
    const dup = await c.json('POST', '/leads/store', { name: '+212612000111', status: 'new' });
    expect(dup.status).to.equal(422);
    expect(dup.body.errors).to.have.property('name');
    const otherAccount = await login(web.url, b.seller.email, b.seller.password);
    expect((await otherAccount.json('POST', '/leads/store', { name: '+212612000111', status: 'new' })).status).to.equal(
      201,
    );
    const short = await c.json('POST', '/leads/store', { name: '0612', status: 'new' });
    expect(short.status).to.equal(422);
    expect(short.body.errors.name[0]).to.match(/at least 7/);
    expect(await getCtx().models.Lead.count({ where: { account_id: a.id } })).to.equal(1);
  });

  it('lets an agent update a lead (history written) but not delete it', async () => {
    const a = await makeAccount(getCtx());
    const [ref] = await seedLeads(a, 1);
    const id = await idOf(ref);
    const c = await login(web.url, a.agent.email, a.agent.password);
    const upd = await c.json('PATCH', `/leads/${id}/update`, {
      status: 'call_later',
      full_name: 'Changed Name',
      phone: '0600000001',
      action_date: '2030-12-24T10:00:00+01:00',
    });
    expect(upd.status).to.equal(200);
    expect(upd.body.data).to.include({
      status: 'call_later',
      full_name: 'Changed Name',
      action_date: '2030-12-24T09:00:00.000Z',
    });
    const h = upd.body.data.history.at(-1);
    expect(h).to.include({ old_status: 'new', new_status: 'call_later', changed_by: a.agent.name });
    expect(
      (
        await c.json('PATCH', `/leads/${id}/update`, {
          status: 'call_later',
          full_name: 'Changed Name',
          phone: '0600000001',
        })
      ).status,
    ).to.equal(422);
    const del = await c.json('DELETE', '/leads/delete', { ids: [id] });
    expect(del.status).to.equal(403);
    expect(await getCtx().models.Lead.count({ where: { id } })).to.equal(1);
  });

  it("bulk-deletes by id with history, refuses a confirmed lead and another account's id", async () => {
    const a = await makeAccount(getCtx());
    const b = await makeAccount(getCtx());
    const refs = await seedLeads(a, 3);
    const [otherRef] = await seedLeads(b, 1);
    await getCtx().services.leads.updateStatuses(a.seller.actor, {
      leads: [{ reference: refs[2], status: 'confirmed' }],
    });
    const c = await login(web.url, a.seller.email, a.seller.password);
    const ids = await Promise.all(refs.map(idOf));
    const protectedRes = await c.json('DELETE', '/leads/delete', { ids });
    expect(protectedRes.status).to.equal(422);
    expect(protectedRes.body.errors['ids.2'][0]).to.match(/protected status confirmed/);
    expect((await c.json('DELETE', '/leads/delete', { ids: [ids[0], await idOf(otherRef)] })).status).to.equal(422);
    expect(await getCtx().models.Lead.count({ where: { account_id: a.id } })).to.equal(3);
    const ok = await c.json('DELETE', '/leads/delete', { ids: ids.slice(0, 2) });
    expect(ok.body).to.deep.equal({ message: '2 leads deleted.', deleted: 2 });
    expect(await getCtx().models.LeadHistory.count({ where: { lead_id: ids.slice(0, 2) } })).to.equal(0);
    expect(await getCtx().models.Lead.count({ where: { account_id: b.id } })).to.equal(1);
  });

  it("lists lead and order histories and one record's timeline, scoped to the account", async () => {
    const a = await makeAccount(getCtx());
    const b = await makeAccount(getCtx());
    const [ref] = await seedLeads(a, 1);
    const [otherRef] = await seedLeads(b, 1);
    await getCtx().services.leads.updateStatuses(a.seller.actor, { leads: [{ reference: ref, status: 'confirmed' }] });
    await getCtx().services.leads.updateStatuses(b.seller.actor, {
      leads: [{ reference: otherRef, status: 'confirmed' }],
    });
    const c = await login(web.url, a.agent.email, a.agent.password);
    const leadHist = await c.json('GET', '/lead-histories');
    expect(leadHist.body.meta.total).to.equal(2);
    expect(leadHist.body.data.every((h: { lead_reference: string }) => h.lead_reference === ref)).to.equal(true);
    const timeline = await c.json('GET', `/lead-histories/${await idOf(ref)}/show`);
    expect(timeline.body.data.history.map((h: { new_status: string }) => h.new_status)).to.deep.equal([
      'new',
      'confirmed',
    ]);
    expect((await c.json('GET', `/lead-histories/${await idOf(otherRef)}/show`)).status).to.equal(404);
    const orders = await c.json('GET', '/orders-histories');
    expect(orders.body.meta.total).to.equal(1);
    const order = await getCtx().models.Order.findOne({ where: { account_id: a.id } });
    const otherOrder = await getCtx().models.Order.findOne({ where: { account_id: b.id } });
    expect((await c.json('GET', `/orders-histories/${order!.id}/show`)).body.data.reference).to.equal(order!.reference);
    expect((await c.json('GET', `/orders-histories/${otherOrder!.id}/show`)).status).to.equal(404);
  });
});
