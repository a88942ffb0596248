import { expect } from 'chai';
import { ValidationError } from '../../src/errors.js';
import { payloadOf } from '../../admin/resources/service-actions.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { expectNoPollution, fingerprint } from '../input-probes.js';
import { login, type SessionClient } from '../session.js';

/**
 * The input rules in the panel (docs/api.md "Input rules"), over its own lists: every resource, every action of it
 * (by its kind: resource, record, bulk) and every page. One request carries all the prototype-named keys, in the query
 * as flat and bracket keys (`filters.__proto__.x`, `record.constructor.prototype.y`) and in a JSON or form body; the
 * answer must name each of them, and nothing may change or be polluted.
 */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

const query = PROTOTYPE_KEYS.flatMap((k) => [`filters.${k}.polluted=yes`, `record.${k}.prototype.polluted=yes`])
  .concat(`constructor[prototype][polluted]=yes`)
  .join('&');
const json = `{${PROTOTYPE_KEYS.map((k) => `"${k}":{"polluted":"yes"},"record.${k}.0":"polluted"`).join(',')}}`;
const form = PROTOTYPE_KEYS.map((k) => `${k}.0=polluted&${k}.prototype.polluted=yes`).join('&');

type Model = { getAttributes(): object; findOne(o: object): Promise<{ get(k: string): unknown } | null> };

/** An id of the account's own row of the resource's model, so record actions reach a real record. */
async function ownId(model: Model, acc: TestAccount): Promise<string> {
  if (!('account_id' in model.getAttributes())) return String(acc.id); // the account itself; a city's id is as good
  const row = await model.findOne({ where: { account_id: acc.id }, order: [['id', 'DESC']] });
  return String(row?.get('id') ?? 1);
}

describe('input rules in the panel: prototype-named keys over every resource, action and page', () => {
  const web = useTestServer();
  let acc: TestAccount;
  let seller: SessionClient;
  before(async () => {
    acc = await makeAccount(getCtx());
    await getCtx().services.leads.createMany(acc.seller.actor, {
      leads: [
        {
          phone: '+212600000301',
          full_name: 'Panel Probe',
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
        },
      ],
    });
    seller = await login(web.url, acc.seller.email, acc.seller.password);
  });

  /** The answer to a request: a 422 naming every prototype key the request carried; nothing polluted. */
  async function expectEveryKeyNamed(method: string, url: string, body?: string, type = 'application/json') {
    const res = await seller.fetch(url, { method, headers: { origin: web.url, 'content-type': type }, body });
    const text = await res.text();
    const said = `${method} ${url} ${body ?? ''}: ${res.status} ${text.slice(0, 300)}`;
    expect(res.status, said).to.equal(422);
    const fields = Object.keys(JSON.parse(text).errors);
    for (const key of PROTOTYPE_KEYS)
      expect(
        fields.some((f) => f.split('.').includes(key)),
        `${key}: ${said}`,
      ).to.equal(true);
    expectNoPollution(said);
  }

  it('When any panel action or page gets prototype-named keys in its query, JSON body or form body, Then it answers 422 naming each, changes nothing and pollutes nothing', async function () {
    this.timeout(60_000);
    await seller.json('GET', '/admin/api/resources/leads/actions/list');
    const { builtPanel } = await import('../../admin/admin.js');
    const admin = builtPanel()!;
    const before = await fingerprint(acc.id);
    let actions = 0;
    for (const resource of admin.resources) {
      const rid = resource.id();
      const id = await ownId((resource as unknown as { model: Model }).model, acc);
      for (const [name, action] of Object.entries(resource.decorate().actions)) {
        const urls = [
          ...(action.isResourceType() ? [`/admin/api/resources/${rid}/actions/${name}?${query}`] : []),
          ...(action.isRecordType() ? [`/admin/api/resources/${rid}/records/${id}/${name}?${query}`] : []),
          ...(action.isBulkType() ? [`/admin/api/resources/${rid}/bulk/${name}?recordIds=${id}&${query}`] : []),
        ];
        for (const url of urls) {
          actions += 1;
          // bodies alone (their flat keys reach AdminJS's own parser, which read `properties.__proto__`: a 500)
          const bare = url.split('?')[0] + (action.isBulkType() ? `?recordIds=${id}` : '');
          await Promise.all([
            expectEveryKeyNamed('GET', url),
            expectEveryKeyNamed('POST', bare, json),
            expectEveryKeyNamed('POST', bare, form, 'application/x-www-form-urlencoded'),
          ]);
        }
      }
    }
    for (const page of Object.keys(admin.options.pages ?? {})) {
      await expectEveryKeyNamed('GET', `/admin/api/pages/${page}?${query}`);
      await expectEveryKeyNamed('POST', `/admin/api/pages/${page}`, json);
    }
    expect(actions).to.be.greaterThan(admin.resources.length * 3);
    expect(await fingerprint(acc.id)).to.equal(before);
  });

  it('When a panel payload reaching a service action names a prototype segment, Then payloadOf refuses it by name and writes no prototype', () => {
    for (const key of ['__proto__.0', 'constructor.0', 'constructor.prototype.polluted', 'products.0.__proto__']) {
      const err = (() => {
        try {
          payloadOf({ method: 'post', payload: { [key]: 'polluted', full_name: 'Ok Name' } } as never);
          return null;
        } catch (e) {
          return e;
        }
      })();
      expect(err, key).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).errors, key).to.deep.equal({ [key]: [`The ${key} field is not allowed.`] });
      expectNoPollution(key);
    }
    expect(payloadOf({ method: 'post', payload: { 'products.0': 'a', 'products.1': 'b' } } as never)).to.deep.equal({
      products: ['a', 'b'],
    });
  });
});
