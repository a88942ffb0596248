import { WEBHOOK_EVENTS } from '../../src/webhooks/webhook.schemas.js';
import { expect } from 'chai';
import { SCOPES } from '../../src/actor.js';
import { createWebhookService } from '../../src/webhooks/webhook.service.js';
import { makeAccount, makeAdmin } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { getCtx } from '../hooks.js';
import { restClient } from '../rest-client.js';

const HOOK = { url: 'http://127.0.0.1:9/hook', events: ['lead.created', 'order.status_changed'] };

describe('REST webhooks (scope MANAGE WEBHOOKS)', () => {
  const web = useTestServer();

  it('creates, lists, shows, changes, rotates and deletes endpoints; the secret is shown only at create and rotate', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token(['MANAGE WEBHOOKS']));
    const created = await call('POST', '/webhooks', HOOK);
    expect(created.status).to.equal(201);
    expect(created.body.secret).to.match(/^whsec_/);
    expect(created.body.data).to.include({ account_id: acc.id, url: HOOK.url, active: true });
    expect(created.body.data).to.not.have.any.keys('secret');
    const id = created.body.data.id;

    const list = await call('GET', '/webhooks');
    expect(list.status).to.equal(200);
    expect(list.body.data.map((e: { id: number }) => e.id)).to.deep.equal([id]);
    expect(list.body.meta).to.include({ total: 1, current_page: 1 });
    const shown = await call('GET', `/webhooks/${id}`);
    expect(shown.body.data.events).to.deep.equal(HOOK.events);
    for (const answer of [list, shown]) expect(JSON.stringify(answer.body)).to.not.include(created.body.secret);

    const changed = await call('PUT', `/webhooks/${id}`, { events: ['import.finished'], active: false });
    expect(changed.status).to.equal(200);
    expect(changed.body.data).to.include({ active: false });
    expect(changed.body.data.events).to.deep.equal(['import.finished']);
    const rotated = await call('POST', `/webhooks/${id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    expect(rotated.body.secret)
      .to.match(/^whsec_/)
      .and.not.equal(created.body.secret);
    const stored = await ctx.models.WebhookEndpoint.findByPk(id);
    expect(stored!.secret).to.equal(rotated.body.secret);

    const gone = await call('DELETE', `/webhooks/${id}`);
    expect(gone.status).to.equal(200);
    expect(gone.body).to.deep.equal({ message: 'Webhook endpoint deleted.', deleted: 1 });
    expect((await call('GET', `/webhooks/${id}`)).status).to.equal(404);
  });

  it('lists and shows deliveries, filters them, and re-sends one with 202', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token());
    const { body } = await call('POST', '/webhooks', HOOK);
    await call('POST', '/leads', {
      leads: [
        {
          phone: '+212612345678',
          full_name: 'Rest Hook',
          products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }],
        },
      ],
    });
    // the delivery job fans events out to endpoints (issue 29): the log shows them from then on
    await ctx.services.webhooks.fanOut();
    const list = await call('GET', `/webhooks/deliveries?endpoint_id=${body.data.id}&state=pending`);
    expect(list.status).to.equal(200);
    expect(list.body.data).to.have.length(1);
    const [d] = list.body.data;
    expect(d).to.include({ event: 'lead.created', state: 'pending', attempts: 0, endpoint_id: body.data.id });
    expect(d.payload.lead.full_name).to.equal('Rest Hook');
    expect(list.body.links.first).to.include('state=pending');
    expect((await call('GET', '/webhooks/deliveries?state=delivered')).body.data).to.have.length(0);
    const shown = await call('GET', `/webhooks/deliveries/${d.id}`);
    expect(shown.body.data.event_id).to.equal(d.event_id);
    // a pending delivery cannot be resent (it would arrive twice); an ended one can
    expect((await call('POST', `/webhooks/deliveries/${d.id}/resend`)).status).to.equal(409);
    await ctx.models.WebhookDelivery.update({ state: 'failed' }, { where: { id: d.id } });
    const again = await call('POST', `/webhooks/deliveries/${d.id}/resend`);
    expect(again.status).to.equal(202);
    expect(again.body.data).to.include({ resent_from: d.id, state: 'pending' });
  });

  it('refuses tokens without the scope, and agents', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const others = SCOPES.filter((s) => s !== 'MANAGE WEBHOOKS');
    const call = restClient(web.url, await acc.token([...others]));
    for (const [method, path, body] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks', HOOK],
      ['GET', '/webhooks/deliveries'],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.deep.equal({ message: 'This action is unauthorized.' });
    }
    expect(await ctx.models.WebhookEndpoint.count({ where: { account_id: acc.id } })).to.equal(0);
    const err = await ctx.services.webhooks.list(acc.agent.actor, {}).catch((e: Error) => e);
    expect(err).to.have.property('name', 'ForbiddenError');
  });

  it('answers another account’s endpoints and deliveries like unknown ones, and never lists them', async () => {
    const ctx = getCtx();
    const [a, b] = [await makeAccount(ctx), await makeAccount(ctx)];
    const callA = restClient(web.url, await a.token());
    const callB = restClient(web.url, await b.token());
    const theirs = (await callB('POST', '/webhooks', HOOK)).body.data;
    await callB('POST', '/leads', {
      leads: [
        { phone: '+212612345679', full_name: 'B lead', products: [{ sku: b.skus.active[0], quantity: 1, price: 1 }] },
      ],
    });
    await getCtx().services.webhooks.fanOut();
    const [delivery] = (await callB('GET', '/webhooks/deliveries')).body.data;
    for (const [method, path, body] of [
      ['GET', `/webhooks/${theirs.id}`],
      ['PUT', `/webhooks/${theirs.id}`, { active: false }],
      ['DELETE', `/webhooks/${theirs.id}`],
      ['POST', `/webhooks/${theirs.id}/rotate-secret`],
      ['GET', `/webhooks/deliveries/${delivery.id}`],
      ['POST', `/webhooks/deliveries/${delivery.id}/resend`],
    ] as const) {
      const res = await callA(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body).to.deep.equal({ message: 'Not found.' });
    }
    expect((await callA('GET', '/webhooks')).body.data).to.deep.equal([]);
    expect((await callA('GET', `/webhooks/deliveries?endpoint_id=${theirs.id}`)).body.data).to.deep.equal([]);
    const named = await callA('POST', '/webhooks', { ...HOOK, account_id: b.id });
    expect(named.status).to.equal(422);
    expect(named.body.errors).to.have.keys('account_id');
    expect((await callA('GET', `/webhooks?account_id=${b.id}`)).status).to.equal(422);
    const after = await ctx.models.WebhookEndpoint.findByPk(theirs.id);
    expect(after).to.include({ active: true, account_id: b.id });
    expect(await ctx.models.WebhookDelivery.count({ where: { account_id: b.id } })).to.equal(1);
  });

  it('lets an admin manage any account’s endpoints by naming it', async () => {
    const ctx = getCtx();
    const [acc, admin] = [await makeAccount(ctx), await makeAdmin(ctx)];
    const made = await ctx.services.webhooks.create(admin.actor, { ...HOOK, account_id: acc.id });
    expect(made.endpoint.account_id).to.equal(acc.id);
    const page = await ctx.services.webhooks.list(admin.actor, { account_id: acc.id });
    expect(page.data.map((e) => e.id)).to.deep.equal([made.endpoint.id]);
    const err = await ctx.services.webhooks.create(admin.actor, { ...HOOK, account_id: 2_000_000_000 }).catch((e) => e);
    expect(err.errors).to.have.keys('account_id');
  });

  it('refuses bad input with 422 naming the field, and odd ids with 404', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token());
    const id = (await call('POST', '/webhooks', HOOK)).body.data.id;
    const cases: [unknown, string][] = [
      [{ ...HOOK, url: 'ftp://example.com/x' }, 'url'],
      [{ ...HOOK, url: 'not a url' }, 'url'],
      [{ ...HOOK, url: `https://example.com/${'a'.repeat(600)}` }, 'url'],
      [{ ...HOOK, url: 'https://example.com/\u0000' }, 'url'],
      [{ ...HOOK, url: 'https://user:pw@example.com/x' }, 'url'],
      [{ ...HOOK, events: [] }, 'events'],
      [{ ...HOOK, events: ['lead.deleted'] }, 'events.0'],
      [{ ...HOOK, events: ['lead.created', 'lead.created'] }, 'events.1'],
      [{ ...HOOK, events: 'lead.created' }, 'events'],
      [{ ...HOOK, active: 'maybe' }, 'active'],
      [{ ...HOOK, secret: 'mine' }, 'secret'],
      [{ url: HOOK.url }, 'events'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/webhooks', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).to.equal(422);
      expect(res.body.errors, JSON.stringify(body).slice(0, 80)).to.have.property(field);
    }
    expect((await call('PUT', `/webhooks/${id}`, {})).status).to.equal(422);
    expect((await call('PUT', `/webhooks/${id}`, { url: 'gopher://x' })).body.errors).to.have.property('url');
    for (const query of ['per_page=101', 'state=lost', 'endpoint_id=abc', 'endpoint_id=1e99', 'page=0', 'x=1'])
      expect((await call('GET', `/webhooks/deliveries?${query}`)).status, query).to.equal(422);
    for (const bad of ['abc', '1e99', '99999999999999999999', '-1', '0', '%00', '1.5'])
      for (const path of [`/webhooks/${bad}`, `/webhooks/deliveries/${bad}`]) {
        const res = await call('GET', path);
        expect(res.status, path).to.equal(404);
      }
    const huge = await call('POST', '/webhooks', { ...HOOK, events: Array(100_000).fill('lead.created') });
    expect(huge.status).to.equal(422);
    expect(await ctx.models.WebhookEndpoint.count({ where: { account_id: acc.id } })).to.equal(1);
  });

  it('documents the routes and the scope in the OpenAPI document', async () => {
    const doc = await (await fetch(`${web.url}/api/web/1.0/openapi.json`)).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/webhooks'))).to.have.length(6);
    expect(doc.paths['/webhooks'].post.description).to.include('MANAGE WEBHOOKS');
    expect(
      doc.paths['/webhooks'].post.requestBody.content['application/json'].schema.properties.events.maxItems,
    ).to.equal(WEBHOOK_EVENTS.length);
    expect(doc.info.description).to.include('MANAGE WEBHOOKS');
  });

  it('answers other methods with 405', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const call = restClient(web.url, await acc.token());
    const id = (await call('POST', '/webhooks', HOOK)).body.data.id;
    for (const [method, path] of [
      ['PATCH', '/webhooks'],
      ['DELETE', '/webhooks'],
      ['PATCH', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}`],
      ['GET', `/webhooks/${id}/rotate-secret`],
      ['DELETE', '/webhooks/deliveries'],
      ['PUT', '/webhooks/deliveries/1'],
      ['GET', '/webhooks/deliveries/1/resend'],
    ]) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).to.equal(405);
    }
    expect(await ctx.models.WebhookEndpoint.count({ where: { account_id: acc.id } })).to.equal(1);
  });

  it('refuses private and loopback URLs unless WEBHOOK_ALLOW_PRIVATE_URLS, when saved and when sent', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const strict = createWebhookService({ ...ctx, config: { ...ctx.config, webhookAllowPrivateUrls: false } });
    for (const url of ['http://127.0.0.1/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/x']) {
      const err = await strict.create(acc.seller.actor, { ...HOOK, url }).catch((e) => e);
      expect(err.errors, url).to.have.keys('url');
      expect(err.errors.url[0]).to.equal('The url field must point to a public address.');
    }
    // stored while private addresses were allowed: the send refuses it all the same
    const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: 'http://127.0.0.1:9/x',
      events: ['lead.created'],
    });
    await ctx.services.leads.createMany(acc.seller.actor, {
      leads: [
        { phone: '+212612345670', full_name: 'Ssrf', products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }] },
      ],
    });
    while ((await strict.deliverDue()) > 0);
    const [d] = (await strict.deliveries(acc.seller.actor, { endpoint_id: endpoint.id })).data;
    expect(d).to.include({ state: 'pending', attempts: 1, response_code: null });
    expect(d.last_error).to.include('not a public address');
  });
});
