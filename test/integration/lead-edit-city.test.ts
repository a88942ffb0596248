import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount, uid } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, panelApi, type SessionClient } from '../session.js';
import { systemActor } from '../../src/actor.js';

type Json = Record<string, unknown>;

/** What the edit form posts back: the record's params as the form got them, a null as AdminJS's form data says it. */
const formOf = (params: Json, changes: Json = {}): Json =>
  Object.fromEntries(
    Object.entries({ ...params, ...changes }).map(([k, v]) => [k, v === null ? '__FORM_VALUE_NULL__' : v]),
  );

/**
 * A lead that came in with a typed city the list does not know (`city` without `city_id`): its edit form gets the
 * typed name (the City select shows it, admin/components/city-choice.tsx), an untouched save keeps it, and choosing a
 * city of the list links the lead to it.
 */
describe('panel lead edit: a typed city not in the list', function () {
  this.timeout(120_000);
  const web = useTestServer();
  let a: TestAccount;
  let seller: SessionClient;
  const typed = `Tiznit Nord ${uid()}`;

  const newLead = async (phone: string): Promise<number> => {
    const ctx = getCtx();
    const { references } = await ctx.services.leads.createMany(a.seller.actor, {
      leads: [
        { phone, full_name: 'Typed City', city: typed, products: [{ sku: a.skus.active[0], quantity: 1, price: 100 }] },
      ],
    });
    return (await ctx.models.Lead.findOne({ where: { account_id: a.id, reference: references[0] } }))!.id;
  };
  const edit = async (id: number, changes: Json = {}) => {
    const got = await panelApi(seller, web.url, 'GET', `leads/records/${id}/edit`);
    expect(got.status).to.equal(200);
    const params = got.body.record.params as Json;
    const saved = await panelApi(seller, web.url, 'POST', `leads/records/${id}/edit`, formOf(params, changes));
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.notice?.type, saved.text).to.equal('success');
    return { params, lead: (await getCtx().models.Lead.findByPk(id))! };
  };

  before(async () => {
    a = await makeAccount(getCtx());
    seller = await login(web.url, a.seller.email, a.seller.password);
  });

  it('When the form is saved untouched, Then the lead keeps its typed city and no city of the list', async () => {
    const id = await newLead('+212611220071');
    const { params, lead } = await edit(id);
    expect([params.city, params.city_id ?? null]).to.deep.equal([typed, null]);
    expect([lead.city, lead.city_id]).to.deep.equal([typed, null]);
  });

  it('When a city of the list is chosen, Then the lead is linked to it under its name', async () => {
    const city = await getCtx().services.catalogue.createCity(systemActor(), `Agadir ${uid()}`);
    const id = await newLead('+212611220072');
    const { lead } = await edit(id, { city_id: String(city.id) });
    expect([lead.city, lead.city_id]).to.deep.equal([city.name, city.id]);
  });
});
