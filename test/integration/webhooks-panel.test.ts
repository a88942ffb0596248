import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, type SessionClient, panelApi } from '../session.js';

type Answer = { status: number; text: string; body: any };
const EVENTS = ['lead.created', 'lead.status_changed'];

/** The stored secret of an endpoint, read straight from the table (no entry point answers it). */
async function storedSecret(id: number): Promise<string> {
  const [row] = await getCtx().db.sequelize.query<{ secret: string }>(
    'SELECT secret FROM webhook_endpoints WHERE id = :id',
    { replacements: { id }, type: 'SELECT' as never },
  );
  return row.secret;
}

/** A lead of the account, so its subscribed endpoints get a `lead.created` delivery (its event fanned out). */
async function leadFor(acc: TestAccount, tag: string): Promise<void> {
  await getCtx().services.leads.createMany(acc.seller.actor, {
    leads: [
      {
        phone: `+2126${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
        full_name: `Hook ${tag}`,
        products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
      },
    ],
  });
  // the delivery job fans events out to endpoints (issue 29): the log shows the delivery from then on
  await getCtx().services.webhooks.fanOut();
}

describe('webhooks in the panel and the dashboard routes', function () {
  this.timeout(120_000);
  const web = useTestServer();
  let a: TestAccount;
  let b: TestAccount;
  let seller: SessionClient;
  let agent: SessionClient;
  let foreignEndpoint: number;
  let foreignDelivery: number;

  const panel = (c: SessionClient, method: string, path: string, json?: unknown): Promise<Answer> =>
    panelApi(c, web.url, method, path, json);

  const dash = async (c: SessionClient, method: string, path: string, body?: unknown): Promise<Answer> => {
    const r = await c.fetch(path, { method, ...(body !== undefined ? { json: body } : {}) });
    const text = await r.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: the status and text still speak */
    }
    return { status: r.status, text, body: parsed };
  };

  const newEndpoint = (c: SessionClient, url: string) =>
    panel(c, 'POST', 'webhook_endpoints/actions/new', {
      url,
      'events.0': EVENTS[0],
      'events.1': EVENTS[1],
      active: 'true',
    });

  before(async () => {
    const ctx = getCtx();
    a = await makeAccount(ctx);
    b = await makeAccount(ctx);
    const { endpoint } = await ctx.services.webhooks.create(b.seller.actor, {
      url: 'http://127.0.0.1:9/foreign-hook',
      events: EVENTS,
    });
    foreignEndpoint = Number(endpoint.id);
    await leadFor(b, 'foreign');
    await ctx.services.webhooks.create(a.seller.actor, { url: 'http://127.0.0.1:9/own-first', events: EVENTS });
    await leadFor(a, 'own-first');
    const delivery = await ctx.models.WebhookDelivery.findOne({ where: { account_id: b.id } });
    foreignDelivery = Number(delivery!.get('id'));
    seller = await login(web.url, a.seller.email, a.seller.password);
    agent = await login(web.url, a.agent.email, a.agent.password);
  });

  describe('the panel', () => {
    it('When a seller creates an endpoint, Then the secret is in the answer for its dialog once, never in its notice, list, show or edit', async () => {
      const created = await newEndpoint(seller, 'http://127.0.0.1:9/own-hook');
      expect(created.status).to.equal(200);
      expect(created.body.notice.type).to.equal('success');
      expect(created.body.secret.kind).to.equal('webhookSecret');
      const secret: string = created.body.secret.value;
      expect(created.body.notice.message).to.not.include(secret);
      const id = Number(created.body.record.params.id);
      expect(await storedSecret(id)).to.equal(secret);
      expect(created.body.record.params).to.not.have.any.keys('secret');
      expect(created.body.record.params.account_id).to.equal(a.id);

      const list = await panel(seller, 'GET', 'webhook_endpoints/actions/list');
      const show = await panel(seller, 'GET', `webhook_endpoints/records/${id}/show`);
      const edit = await panel(seller, 'GET', `webhook_endpoints/records/${id}/edit`);
      for (const page of [list, show, edit]) expect(page.text).to.not.include(secret);
      expect(list.body.records.map((r: any) => r.params.url)).to.include('http://127.0.0.1:9/own-hook');
      expect(show.body.record.params.secret_state).to.equal('set');
      expect(show.body.record.params['events.1']).to.equal(EVENTS[1]);
    });

    it('When a seller rotates the secret, Then a GET changes nothing and the POST shows the new one once', async () => {
      const created = await newEndpoint(seller, 'http://127.0.0.1:9/rotate-hook');
      const id = Number(created.body.record.params.id);
      const first = await storedSecret(id);
      const looked = await panel(seller, 'GET', `webhook_endpoints/records/${id}/rotateSecret`);
      expect(looked.status).to.equal(200);
      expect(looked.text).to.not.include(first);
      expect(await storedSecret(id)).to.equal(first);

      const rotated = await panel(seller, 'POST', `webhook_endpoints/records/${id}/rotateSecret`);
      const secret: string = rotated.body.secret.value;
      expect(rotated.body.notice.message).to.not.include(secret);
      expect(secret).to.not.equal(first);
      expect(await storedSecret(id)).to.equal(secret);
      expect((await panel(seller, 'GET', `webhook_endpoints/records/${id}/show`)).text).to.not.include(secret);
    });

    it('When a seller edits the URL and unticks Active, Then the endpoint changes and keeps its secret', async () => {
      const created = await newEndpoint(seller, 'http://127.0.0.1:9/edit-hook');
      const id = Number(created.body.record.params.id);
      const secret = await storedSecret(id);
      const edited = await panel(seller, 'POST', `webhook_endpoints/records/${id}/edit`, {
        ...created.body.record.params,
        url: 'http://127.0.0.1:9/edited-hook',
        active: 'false',
        secret: 'tampered-secret-value',
      });
      expect(edited.body.notice.type).to.equal('success');
      const row = await getCtx().models.WebhookEndpoint.findByPk(id);
      expect([row!.get('url'), row!.get('active')]).to.deep.equal(['http://127.0.0.1:9/edited-hook', false]);
      expect(await storedSecret(id)).to.equal(secret);
    });

    it('When the form is bad (no URL, not a URL, an unknown event), Then the field is named and nothing is stored', async () => {
      const before = await getCtx().models.WebhookEndpoint.count({ where: { account_id: a.id } });
      for (const body of [
        { 'events.0': 'lead.created' },
        { url: 'not a url', 'events.0': 'lead.created' },
        { url: 'http://127.0.0.1:9/x', 'events.0': 'lead.exploded' },
      ]) {
        const res = await panel(seller, 'POST', 'webhook_endpoints/actions/new', body);
        expect(res.status, JSON.stringify(body)).to.be.below(500);
        expect(res.body.notice?.type, JSON.stringify(body)).to.equal('error');
        expect(Object.keys(res.body.record?.errors ?? {}).join(','), JSON.stringify(body)).to.match(/url|events/);
      }
      expect(await getCtx().models.WebhookEndpoint.count({ where: { account_id: a.id } })).to.equal(before);
    });

    it("When a seller lists deliveries, Then only the account's show, with state, code and the body on the show page", async () => {
      await leadFor(a, 'own');
      const list = await panel(seller, 'GET', 'webhook_deliveries/actions/list?perPage=500');
      expect(list.status).to.equal(200);
      expect(list.body.records.length).to.be.greaterThan(0);
      for (const r of list.body.records) expect(r.params.account_id).to.equal(a.id);
      const own = list.body.records[0];
      expect(own.params).to.include.keys('event', 'state', 'attempts');
      const show = await panel(seller, 'GET', `webhook_deliveries/records/${own.id}/show`);
      // the event's data as one JSON text, not AdminJS's flattened `payload.*` keys
      expect(JSON.parse(show.body.record.params.payload_text)).to.have.property('lead');
      expect(Object.keys(show.body.record.params).filter((k) => k.startsWith('payload.'))).to.deep.equal([]);
      const filtered = await panel(
        seller,
        'GET',
        `webhook_deliveries/actions/list?filters.endpoint_id=${foreignEndpoint}`,
      );
      expect(filtered.body.records).to.deep.equal([]);
    });

    it('When a seller resends a delivery, Then a new pending delivery of the same event exists and the page opens it', async () => {
      const ctx = getCtx();
      const own = await ctx.models.WebhookDelivery.findOne({ where: { account_id: a.id }, order: [['id', 'ASC']] });
      await own!.update({ state: 'failed' }); // a pending one is refused (webhooks-attack.test.ts)
      const looked = await panel(seller, 'GET', `webhook_deliveries/records/${own!.get('id')}/resend`);
      expect(looked.status).to.equal(200);
      const count = await ctx.models.WebhookDelivery.count({ where: { account_id: a.id } });
      const resent = await panel(seller, 'POST', `webhook_deliveries/records/${own!.get('id')}/resend`);
      expect(resent.body.notice.type).to.equal('success');
      const again = await ctx.models.WebhookDelivery.findByPk(resent.body.record.params.id);
      expect(await ctx.models.WebhookDelivery.count({ where: { account_id: a.id } })).to.equal(count + 1);
      expect([again!.get('event'), again!.get('state'), again!.get('endpoint_id')]).to.deep.equal([
        own!.get('event'),
        'pending',
        own!.get('endpoint_id'),
      ]);
      expect(resent.body.redirectUrl).to.include(`/records/${again!.get('id')}/show`);
    });

    it("When a seller names another account's endpoint or delivery, Then every action answers not found and changes nothing", async () => {
      const ctx = getCtx();
      const endpointBefore = JSON.stringify(await ctx.models.WebhookEndpoint.findByPk(foreignEndpoint));
      const secretBefore = await storedSecret(foreignEndpoint);
      const deliveries = await ctx.models.WebhookDelivery.count({ where: { account_id: b.id } });
      const unknown = 2_000_000_000;
      const asked = [
        ...['show', 'edit', 'delete', 'rotateSecret'].map((action) => ['webhook_endpoints', foreignEndpoint, action]),
        ...['show', 'resend'].map((action) => ['webhook_deliveries', foreignDelivery, action]),
      ] as [string, number, string][];
      for (const [resource, id, action] of asked) {
        for (const method of ['GET', 'POST']) {
          const body = method === 'POST' ? { url: 'http://127.0.0.1:9/stolen' } : undefined;
          const f = await panel(seller, method, `${resource}/records/${id}/${action}`, body);
          const u = await panel(seller, method, `${resource}/records/${unknown}/${action}`, body);
          const where = `${method} ${resource} ${action}`;
          expect(f.status, where).to.equal(u.status);
          expect(f.text.split(String(id)).join('ID'), where).to.equal(u.text.split(String(unknown)).join('ID'));
          expect(f.body.notice?.type, where).to.equal('error');
          expect(f.text, where).to.not.include('foreign-hook').and.not.include(secretBefore);
        }
      }
      expect(JSON.stringify(await ctx.models.WebhookEndpoint.findByPk(foreignEndpoint))).to.equal(endpointBefore);
      expect(await storedSecret(foreignEndpoint)).to.equal(secretBefore);
      expect(await ctx.models.WebhookDelivery.count({ where: { account_id: b.id } })).to.equal(deliveries);
    });

    it('When an agent opens the webhook pages, Then every action is refused and no menu entry is offered', async () => {
      const ctx = getCtx();
      const own = await ctx.models.WebhookDelivery.findOne({ where: { account_id: a.id } });
      const endpoint = await ctx.models.WebhookEndpoint.findOne({ where: { account_id: a.id } });
      const deliveries = await ctx.models.WebhookDelivery.count({ where: { account_id: a.id } });
      for (const [method, path] of [
        ['GET', 'webhook_endpoints/actions/list'],
        ['GET', 'webhook_deliveries/actions/list'],
        ['GET', `webhook_endpoints/records/${endpoint!.get('id')}/show`],
        ['POST', 'webhook_endpoints/actions/new'],
        ['POST', `webhook_endpoints/records/${endpoint!.get('id')}/rotateSecret`],
        ['POST', `webhook_deliveries/records/${own!.get('id')}/resend`],
      ]) {
        const res = await panel(
          agent,
          method,
          path,
          method === 'POST' ? { url: 'http://127.0.0.1:9/agent' } : undefined,
        );
        expect(res.status, path).to.be.oneOf([200, 403, 404]);
        expect(res.body?.notice?.type ?? 'error', path).to.equal('error');
        expect(res.body?.records ?? [], path).to.deep.equal([]);
        expect(res.body?.record?.params ?? {}, path).to.not.have.any.keys('url', 'event');
      }
      expect(await ctx.models.WebhookDelivery.count({ where: { account_id: a.id } })).to.equal(deliveries);
      // The menu lists a resource whose href is set: none for the agent, both (under "Webhooks", the locale's word for
      // the group `webhooks`) for the seller.
      const menu = async (c: SessionClient, id: string) => {
        const page = await (await c.fetch('/admin', { headers: { accept: 'text/html' } })).text();
        return new RegExp(`"id":"${id}","name":"${id}","navigation":\\{"name":"webhooks"[^}]*\\},"href":([^,]+),`).exec(
          page,
        )?.[1];
      };
      for (const id of ['webhook_endpoints', 'webhook_deliveries']) {
        expect(await menu(agent, id), id).to.equal('null');
        expect(await menu(seller, id), id).to.equal(`"/admin/resources/${id}"`);
      }
    });
  });

  describe('the dashboard routes', () => {
    it('When a seller creates an endpoint, Then the answer carries the secret once and later reads never do', async () => {
      const created = await dash(seller, 'POST', '/webhooks', {
        url: 'http://127.0.0.1:9/dash-hook',
        events: EVENTS,
      });
      expect(created.status).to.equal(201);
      const { secret } = created.body;
      const id = created.body.data.id;
      expect(await storedSecret(id)).to.equal(secret);
      expect(created.body.data).to.not.have.any.keys('secret');
      const list = await dash(seller, 'GET', '/webhooks');
      const show = await dash(seller, 'GET', `/webhooks/${id}`);
      for (const r of [list, show]) {
        expect(r.status).to.equal(200);
        expect(r.text).to.not.include(secret);
      }
      expect(list.body.data.map((e: any) => e.account_id ?? a.id)).to.satisfy((ids: number[]) =>
        ids.every((x) => x === a.id),
      );

      const rotated = await dash(seller, 'POST', `/webhooks/${id}/rotate-secret`);
      expect(rotated.status).to.equal(200);
      expect(rotated.body.secret).to.be.a('string').and.not.equal(secret);
      expect(await storedSecret(id)).to.equal(rotated.body.secret);

      const updated = await dash(seller, 'PATCH', `/webhooks/${id}`, { active: false });
      expect([updated.status, updated.body.data.active]).to.deep.equal([200, false]);
      const removed = await dash(seller, 'DELETE', `/webhooks/${id}`);
      expect(removed.status).to.equal(200);
      expect(await getCtx().models.WebhookEndpoint.findByPk(id)).to.equal(null);
    });

    it('When a seller reads and resends deliveries, Then only the account is seen and a resend queues a new one', async () => {
      const list = await dash(seller, 'GET', '/webhooks/deliveries?per_page=100');
      expect(list.status).to.equal(200);
      expect(list.body.data.length).to.be.greaterThan(0);
      for (const d of list.body.data) expect(d.account_id ?? a.id).to.equal(a.id);
      const first = list.body.data[0];
      await getCtx().models.WebhookDelivery.update({ state: 'delivered' }, { where: { id: first.id } });
      expect((await dash(seller, 'GET', `/webhooks/deliveries/${first.id}`)).status).to.equal(200);
      const resent = await dash(seller, 'POST', `/webhooks/deliveries/${first.id}/resend`);
      expect(resent.status).to.be.oneOf([200, 201, 202]);
      expect(resent.body.data.state).to.equal('pending');
      expect(resent.body.data.id).to.not.equal(first.id);
    });

    it("When a seller names another account's ids, Then every route answers 404 and nothing changes", async () => {
      const ctx = getCtx();
      const before = JSON.stringify(await ctx.models.WebhookEndpoint.findByPk(foreignEndpoint));
      const deliveries = await ctx.models.WebhookDelivery.count({ where: { account_id: b.id } });
      for (const [method, path, body] of [
        ['GET', `/webhooks/${foreignEndpoint}`],
        ['PATCH', `/webhooks/${foreignEndpoint}`, { url: 'http://127.0.0.1:9/stolen' }],
        ['DELETE', `/webhooks/${foreignEndpoint}`],
        ['POST', `/webhooks/${foreignEndpoint}/rotate-secret`],
        ['GET', `/webhooks/deliveries/${foreignDelivery}`],
        ['POST', `/webhooks/deliveries/${foreignDelivery}/resend`],
      ] as [string, string, unknown?][]) {
        const res = await dash(seller, method, path, body);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.text).to.not.include('foreign-hook');
      }
      const filtered = await dash(seller, 'GET', `/webhooks/deliveries?endpoint_id=${foreignEndpoint}`);
      expect(filtered.status).to.be.oneOf([200, 404, 422]);
      if (filtered.status === 200) expect(filtered.body.data).to.deep.equal([]);
      expect(JSON.stringify(await ctx.models.WebhookEndpoint.findByPk(foreignEndpoint))).to.equal(before);
      expect(await ctx.models.WebhookDelivery.count({ where: { account_id: b.id } })).to.equal(deliveries);
    });

    it('When the input is bad (ids, body, query), Then the answer is 404 or 422 naming the field, never a 5xx', async () => {
      for (const id of ['abc', '1e99', '%00', '-1', '99999999999999999999', '1.5']) {
        for (const path of [`/webhooks/${id}`, `/webhooks/deliveries/${id}`]) {
          const res = await dash(seller, 'GET', path);
          expect(res.status, path).to.be.oneOf([404, 422]);
        }
        const resend = await dash(seller, 'POST', `/webhooks/deliveries/${id}/resend`);
        expect(resend.status, id).to.be.oneOf([404, 422]);
      }
      for (const [body, field] of [
        [{ events: EVENTS }, 'url'],
        [{ url: 'ftp://127.0.0.1/x', events: EVENTS }, 'url'],
        [{ url: 'http://127.0.0.1:9/x', events: ['lead.exploded'] }, 'events'],
        [{ url: 'http://127.0.0.1:9/x', events: 'lead.created' }, 'events'],
        [{ url: ['http://127.0.0.1:9/x'], events: EVENTS }, 'url'],
        [{ url: 'http://127.0.0.1:9/x', events: EVENTS, active: 'maybe' }, 'active'],
      ] as [Record<string, unknown>, string][]) {
        const res = await dash(seller, 'POST', '/webhooks', body);
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(Object.keys(res.body.errors).join(','), JSON.stringify(body)).to.include(field);
      }
      for (const q of ['state=nope', 'per_page=1000', 'page=abc', 'endpoint_id=abc']) {
        const res = await dash(seller, 'GET', `/webhooks/deliveries?${q}`);
        expect(res.status, q).to.equal(422);
      }
    });

    it('When an agent or a visitor without a session calls the routes, Then they are refused', async () => {
      for (const [method, path] of [
        ['GET', '/webhooks'],
        ['POST', '/webhooks'],
        ['GET', '/webhooks/deliveries'],
      ]) {
        expect((await dash(agent, method, path, method === 'POST' ? {} : undefined)).status, path).to.equal(403);
        const anonymous = await fetch(`${web.url}${path}`, { method, headers: { accept: 'application/json' } });
        expect(anonymous.status, path).to.equal(401);
      }
      const admin = await makeAdmin(getCtx());
      const adminClient = await login(web.url, admin.email, admin.password);
      expect((await dash(adminClient, 'GET', `/webhooks/${foreignEndpoint}`)).status).to.equal(200);
    });
  });
});
