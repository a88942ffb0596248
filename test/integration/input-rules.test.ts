import { expect } from 'chai';
import { MULTIPART_ONLY_PATH } from '../../admin/router.js';
import { makeAccount, makeCarrier, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { startTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { refuseUnfitBody, refuseUnfitInput } from '../../http/input-guard.js';
import { expectNoPollution, fingerprint } from '../input-probes.js';
import { appOf, expressRoutes, type KnownRoute } from '../routes.js';
import { login, type SessionClient } from '../session.js';

/**
 * The input rules (docs/api.md "Input rules") over every route the app lists: REST, dashboard and sign-in routes from
 * Express's own stack, the panel's from its own resources and actions. A prototype-named key in a query or a body,
 * or a lone UTF-16 surrogate in a string, answers 4xx (422 naming the field), changes nothing and pollutes nothing.
 */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const LONE_SURROGATES = ['\ud800', 'a\udc00', '\udc00\ud800'];

type Answer = { status: number; body: any };

/** Real rows of the account for the routes' path parameters, so requests reach the routes' own work. */
async function pathValues(acc: TestAccount, call: ReturnType<typeof restClient>) {
  const lead = {
    phone: '+212600000101',
    full_name: 'Karim',
    products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
  };
  const [reference] = (await call('POST', '/leads', { leads: [lead] })).body.references;
  await call('POST', '/orders', { orders: [{ ...lead, phone: '+212600000102' }] });
  const hook = await call('POST', '/webhooks', { url: 'https://hooks.example.com/in', events: ['lead.created'] });
  await makeCarrier(getCtx(), acc.id);
  const m = getCtx().models;
  const leadRow = await m.Lead.findOne({ where: { reference } });
  const orderRow = await m.Order.findOne({ where: { account_id: acc.id } });
  const token = await m.ApiToken.findOne({ where: { account_id: acc.id } });
  return {
    reference,
    id: String(hook.body.data?.id ?? 1),
    lead: String(leadRow!.id),
    order: String(orderRow!.id),
    token: String(token!.id),
    code: 'fast',
  } as Record<string, string>;
}

/** The route's path with each parameter replaced by a real value of the account. */
const fill = (path: string, values: Record<string, string>) =>
  path.replace(/:([a-z_]+)/gi, (_all, name: string) => encodeURIComponent(values[name] ?? '1'));

/** The request to a route: REST with the token, anything else with the seller's session (CSRF, same origin). */
function sender(url: string, token: string, seller: SessionClient) {
  return async (route: KnownRoute, path: string, body?: string, type = 'application/json'): Promise<Answer> => {
    const method = route.method.toUpperCase();
    const init = { method, headers: { 'content-type': type, origin: url }, body: method === 'GET' ? undefined : body };
    if (route.mount === '/api/web/1.0') return restClient(url, token)(method, path, init.body, init.headers);
    const res = await seller.fetch(path, init);
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
}

/**
 * A 422 naming the field that carries the input, from a route behind the input guard; from one before it (health,
 * metrics, the OpenAPI document, the sign-in redirect: they read no input), any answer but a server error.
 */
function expectRefused(answer: Answer, what: string, field: RegExp, guarded: boolean): boolean {
  const said = `${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  expect(answer.status, said).to.be.below(500).and.not.equal(429);
  if (guarded) expect(answer.status, said).to.equal(422);
  if (answer.status !== 422) return false;
  const fields = Object.keys(answer.body.errors ?? {});
  expect(
    fields.some((k) => field.test(k)),
    `${what}: ${JSON.stringify(answer.body)}`,
  ).to.equal(true);
  return true;
}

/** A dashboard route that reads no parsed body, only its multipart file (the import: admin/router.ts). */
const multipartOnly = (route: KnownRoute) => route.mount !== '/api/web/1.0' && MULTIPART_ONLY_PATH.test(route.path);

describe('input rules: prototype-named keys and lone surrogates, over every route list', () => {
  let web: Awaited<ReturnType<typeof startTestServer>>;
  let acc: TestAccount;
  let send: ReturnType<typeof sender>;
  let values: Record<string, string>;
  let seller: SessionClient;
  before(async function () {
    this.timeout(180_000); // every route × every key: minutes on a loaded 2-core machine
    // budgets no run reaches: a 429 would end the test's reach, not the input's
    const config = { ...getCtx().config, rateLimitPerMinute: 1e6, rateLimitAccountPerMinute: 1e6 };
    web = await startTestServer({ ...getCtx(), config: { ...config, sessionRatePerMinute: 1e6 } });
    acc = await makeAccount(getCtx());
    const token = await acc.token();
    values = await pathValues(acc, restClient(web.url, token));
    seller = await login(web.url, acc.seller.email, acc.seller.password);
    send = sender(web.url, token, seller);
  });
  after(async () => web.close());

  /**
   * Every route Express lists but the shipping callback and the store webhooks (signed raw bytes, refused unsigned
   * before any parsing; a shop's signed text is made fit, not refused: store-intake-refusals.test.ts).
   */
  const routes = () =>
    expressRoutes(appOf(web.server), [refuseUnfitInput, refuseUnfitBody]).filter(
      (r) => !/\/callback|^\/intake\/(shopify|woocommerce)\//.test(r.path),
    );

  /** The requests of one route with one key: query, JSON body, a form; how many answers named the key. */
  async function probe(route: KnownRoute, path: string, key: string): Promise<number> {
    const field = new RegExp(`(^|\\.)${key.replace(/\W/g, '\\$&')}$`);
    const what = `${route.method} ${route.mount}${route.path} with ${key}`;
    const query = `${key}=1&${key}[polluted]=yes&filters.${key}.polluted=yes`;
    let named = +expectRefused(await send(route, `${path}?${query}`), `${what} in the query`, field, route.guarded);
    if (route.method === 'get') return named;
    // at the top and nested: a prototype key refused wherever it sits; the import reads no body but its multipart file
    const bodyField = multipartOnly(route) ? /^file$/ : field;
    const body = `{"${key}":{"polluted":"yes"},"leads":[{"${key}":{"polluted":"yes"}}],"data":{"${key}":1}}`;
    named += +expectRefused(await send(route, path, body), `${what}: ${body}`, bodyField, route.guarded);
    if (route.mount !== '/api/web/1.0') {
      // the REST API reads every body as JSON; the dashboard's forms are urlencoded
      const form = `${key}=1&${key}.0=polluted&${key}[polluted]=yes`;
      const sent = await send(route, path, form, 'application/x-www-form-urlencoded');
      named += +expectRefused(sent, `${what} in a form`, bodyField, route.guarded);
    }
    expectNoPollution(what);
    return named;
  }

  it('When any REST, dashboard or sign-in route gets a prototype-named key in its query or body, Then it answers 4xx (422 naming the key), changes nothing and pollutes no prototype', async function () {
    this.timeout(180_000);
    const list = routes();
    expect(list.length).to.be.greaterThan(40);
    let named = 0;
    for (const route of list) {
      const before = await fingerprint(acc.id);
      const path = fill(route.path, values);
      // the keys of one route at once: the database is compared per route
      for (const n of await Promise.all(PROTOTYPE_KEYS.map((key) => probe(route, path, key)))) named += n;
      expect(await fingerprint(acc.id), `${route.method} ${route.path} changed the database`).to.equal(before);
    }
    // the routes before the guard are the few that read no input, and the landing-page form, which reads its own
    // body (urlencoded or JSON) and applies the same rule in its service, logging the refusal (src/sources/form-fields.ts)
    const open = list.filter((r) => !r.guarded && !/^\/intake\/forms\//.test(r.path));
    expect(
      open.map((r) => r.method),
      JSON.stringify(open),
    ).to.satisfy((ms: string[]) => ms.every((m) => m === 'get'));
    expect(open.length, JSON.stringify(open)).to.be.below(9);
    expect(named).to.be.greaterThan(list.length * PROTOTYPE_KEYS.length);
  });

  it('When any REST or dashboard write carries a lone surrogate in a string, Then it answers 422 naming that field and changes nothing', async function () {
    this.timeout(180_000);
    for (const route of routes().filter((r) => r.method !== 'get')) {
      const before = await fingerprint(acc.id);
      for (const lone of LONE_SURROGATES) {
        const body = JSON.stringify({ name: `x${lone}`, data: [{ key: 'utm', value: lone }] });
        const answer = await send(route, fill(route.path, values), body);
        const what = `${route.method} ${route.mount}${route.path} ${JSON.stringify(lone)}`;
        if (multipartOnly(route)) expectRefused(answer, what, /^file$/, route.guarded);
        else if (expectRefused(answer, what, /^data\.0\.value$/, route.guarded))
          expect(answer.body.errors['data.0.value'][0]).to.equal('The data.0.value field must be valid Unicode text.');
      }
      expect(await fingerprint(acc.id), `${route.method} ${route.path} changed the database`).to.equal(before);
    }
  });

  it('When a lead is created with a lone surrogate in data[].value or a name (REST, dashboard, panel, service), Then 422 names the field, nothing is stored; an emoji pair is stored intact', async () => {
    const call = restClient(web.url, await acc.token());
    const lead = {
      phone: '+212600000201',
      full_name: 'Amina',
      products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
    };
    const before = await fingerprint(acc.id);
    for (const lone of LONE_SURROGATES) {
      const rest = await call('POST', '/leads', { leads: [{ ...lead, data: [{ key: 'utm', value: lone }] }] });
      expect([rest.status, rest.body.errors?.['leads.0.data.0.value']]).to.deep.equal([
        422,
        ['The leads.0.data.0.value field must be valid Unicode text.'],
      ]);
      const dashboard = await seller.json('POST', '/leads/store', { name: '+212600000202', full_name: `A${lone}` });
      expect([dashboard.status, Object.keys(dashboard.body.errors ?? {})]).to.deep.equal([422, ['full_name']]);
      const panel = await seller.fetch('/admin/api/resources/leads/actions/new', {
        method: 'POST',
        headers: { origin: web.url },
        json: { name: '+212600000203', full_name: `B${lone}` },
      });
      expect(panel.status).to.equal(422);
      expect((await panel.json()).errors).to.have.property('full_name');
      const service = await getCtx()
        .services.leads.createMany(acc.seller.actor, { leads: [{ ...lead, address: lone }] })
        .catch((e) => e);
      expect(service.errors).to.deep.equal({
        'leads.0.address': ['The leads.0.address field must be valid Unicode text.'],
      });
    }
    expect(await fingerprint(acc.id)).to.equal(before);
    const pair = '😀 \ud83d\ude00';
    const ok = await call('POST', '/leads', {
      leads: [{ ...lead, full_name: pair, data: [{ key: 'utm', value: pair }] }],
    });
    expect(ok.status).to.equal(201);
    const stored = await getCtx().models.Lead.findOne({ where: { reference: ok.body.references[0] } });
    expect(stored!.full_name).to.equal(pair);
    expect(JSON.stringify(stored!.get('data'))).to.include(pair);
  });
});
