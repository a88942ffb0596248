import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, makeFilledAccount, makeUser, type FilledAccount } from '../factories.js';
import { postCallback, startTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { login, type SessionClient, panelApi } from '../session.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const sys = systemActor();

/** One test per finding of the panel review; each failed on the main of that day. */
describe('admin panel: tenancy, secrets, roles and state changes', function () {
  this.timeout(120_000);
  let web: Server;
  let a: FilledAccount;
  let b: FilledAccount;
  let seller: SessionClient;
  let agent: SessionClient;

  const panel = (c: SessionClient, method: string, path: string, json?: unknown) =>
    panelApi(c, web.url, method, path, json);

  before(async () => {
    web = await startTestServer();
    a = await makeFilledAccount(getCtx(), 'finding-a');
    b = await makeFilledAccount(getCtx(), 'finding-b');
    seller = await login(web.url, a.seller.email, a.seller.password);
    agent = await login(web.url, a.agent.email, a.agent.password);
  });
  after(async () => {
    await web.close();
  });

  describe('the account scope', () => {
    it("When an agent sends ?filters= (a string), Then the list and the search still show only the agent's account", async () => {
      const list = await panel(agent, 'GET', 'leads/actions/list?filters=&perPage=500');
      expect(list.status).to.equal(200);
      expect(list.body.records.map((r: { params: { account_id: number } }) => r.params.account_id)).to.have.members([
        a.id,
        a.id,
      ]);
      expect(list.body.meta.total).to.equal(2);
      const search = await panel(agent, 'GET', 'leads/actions/search/Customer?filters=');
      expect(search.body.records.length).to.equal(2);
      expect(search.text).to.not.include('finding-b');
    });

    it('When a filter value does not parse (NUL, too long, a list, a bad date), Then it matches nothing instead of being dropped', async () => {
      for (const q of [
        'filters.full_name=%00',
        `filters.full_name=${'x'.repeat(201)}`,
        'filters.status=nope',
        'filters.created_at~~from=zzz',
        'filters.created_at~~to=0000-12-31', // before PostgreSQL's range (answered 500)
        'filters.created_at~~from=2026-02-31', // no such day (rolled over to March)
      ]) {
        const list = await panel(seller, 'GET', `leads/actions/list?${q}`);
        expect([list.status, list.body.meta.total], q).to.deep.equal([200, 0]);
      }
      expect(
        (await panel(seller, 'GET', 'leads/actions/list?filters.full_name=customer')).body.meta.total,
      ).to.be.greaterThan(0);
      const year = new Date().getUTCFullYear();
      const dated = await panel(seller, 'GET', `leads/actions/list?filters.created_at~~from=${year - 1}-01-01`);
      expect(dated.body.meta.total, 'a real date still filters').to.be.greaterThan(0);
    });

    it('When a seller filters by another account, Then the answer is empty rather than that account', async () => {
      const list = await panel(seller, 'GET', `leads/actions/list?filters.account_id=${b.id}`);
      expect(list.body.records).to.deep.equal([]);
      expect(list.body.meta.total).to.equal(0);
    });
  });

  describe('secrets', () => {
    it('When a seller lists, shows and creates shipping companies, Then no answer carries a key or a secret, only whether each is set', async () => {
      const list = await panel(seller, 'GET', 'shipping_companies/actions/list');
      const [own] = list.body.records;
      for (const s of a.secrets) expect(list.text).to.not.include(s);
      const show = await panel(seller, 'GET', `shipping_companies/records/${own.id}/show`);
      for (const s of a.secrets) expect(show.text).to.not.include(s);
      expect(show.body.record.params).to.include({ api_key_state: 'set', hmac_secret_state: 'set' });
      expect(show.body.record.params).to.not.have.any.keys('api_key', 'hmac_secret');

      const created = await panel(seller, 'POST', 'shipping_companies/actions/new', {
        code: 'typed',
        name: 'Typed Secret',
        endpoint_url: 'http://127.0.0.1:9/t',
        api_key: 'typed-api-key-123',
        hmac_secret: 'typed-hmac-secret-1234',
      });
      expect(created.status).to.equal(200);
      expect(created.text).to.not.include('typed-hmac-secret-1234').and.not.include('typed-api-key-123');
    });

    it('When a company is created without a secret, Then one is generated, shown once, and signs callbacks; an empty edit keeps it', async () => {
      const created = await panel(seller, 'POST', 'shipping_companies/actions/new', {
        code: 'genship',
        name: 'Generated',
        endpoint_url: 'http://127.0.0.1:9/g',
      });
      expect(created.body.secret.kind).to.equal('hmacSecret');
      const secret: string = created.body.secret.value;
      expect(created.body.notice.message).to.not.include(secret);
      const id = created.body.record.params.id;
      expect(created.body.record.params).to.not.have.any.keys('hmac_secret');
      const shown = await panel(seller, 'GET', `shipping_companies/records/${id}/show`);
      expect(shown.text).to.not.include(secret);
      expect(
        (
          await panel(seller, 'POST', `shipping_companies/records/${id}/edit`, {
            name: 'Generated Two',
            hmac_secret: '',
          })
        ).status,
      ).to.equal(200);
      const callback = await postCallback(web.url, 'genship', Number(id), secret, {
        orders: [{ reference: 'ORNOSUCHORDR', status: 'shipped' }],
      });
      expect(callback.status).to.equal(422); // signature accepted; the unknown order is what is refused
    });

    it("When only a company's name is edited, Then its timeout, active flag, key and secret stay as they were", async () => {
      const ctx = getCtx();
      const c = await ctx.services.shipping.createCompany(sys, {
        account_id: a.id,
        code: 'keepship',
        name: 'Keep',
        endpoint_url: 'http://127.0.0.1:9/k',
        timeout_ms: 9000,
        active: false,
        api_key: 'keep-api-key-123',
        hmac_secret: 'keep-hmac-secret-1234',
      });
      expect(
        (await panel(seller, 'POST', `shipping_companies/records/${c.id}/edit`, { name: 'Kept Settings' })).body.notice
          .type,
      ).to.equal('success');
      const after = (await ctx.models.ShippingCompany.findByPk(c.id))!;
      expect([after.name, after.timeout_ms, after.active, after.api_key, after.hmac_secret]).to.deep.equal([
        'Kept Settings',
        9000,
        false,
        'keep-api-key-123',
        'keep-hmac-secret-1234',
      ]);
    });

    it('When a seller searches or sorts users by password_hash, Then the hidden column changes nothing in the answer', async () => {
      const plain = await panel(seller, 'GET', 'users/actions/search/?perPage=500');
      const hash = a.secrets.find((s) => s.startsWith('$argon2'))!;
      for (const q of ['$argon2', 'zzzz', hash.slice(0, 12)]) {
        const probe = await panel(
          seller,
          'GET',
          `users/actions/search/${encodeURIComponent(q)}?searchProperty=password_hash&perPage=500`,
        );
        expect(probe.body.records.map((r: { id: string }) => r.id)).to.have.members(
          plain.body.records.map((r: { id: string }) => r.id),
        );
      }
      const byHash = await panel(seller, 'GET', 'users/actions/list?sortBy=password_hash&direction=desc');
      const byDefault = await panel(seller, 'GET', 'users/actions/list?sortBy=id&direction=desc');
      expect(byHash.body.records.map((r: { id: string }) => r.id)).to.deep.equal(
        byDefault.body.records.map((r: { id: string }) => r.id),
      );
    });
  });

  describe('roles', () => {
    it('When a seller edits an admin of the same account, Then neither role nor password changes; an agent cannot become admin', async () => {
      const ctx = getCtx();
      const admin = await makeUser(ctx, a.id, 'admin');
      const before = await ctx.models.User.scope('withPassword').findByPk(admin.id);
      const demote = await panel(seller, 'POST', `users/records/${admin.id}/edit`, {
        name: admin.name,
        email: admin.email,
        role: 'agent',
        password: 'taken-over-password',
      });
      expect(demote.body.notice.type).to.equal('error');
      const after = await ctx.models.User.scope('withPassword').findByPk(admin.id);
      expect([after!.role, after!.password_hash, after!.active]).to.deep.equal([
        before!.role,
        before!.password_hash,
        before!.active,
      ]);
      const promote = await panel(seller, 'POST', `users/records/${a.agent.id}/edit`, {
        name: a.agent.name,
        email: a.agent.email,
        role: 'admin',
      });
      expect(promote.body.notice.type).to.equal('error');
      expect((await ctx.models.User.findByPk(a.agent.id))!.role).to.equal('agent');
      const rename = await panel(seller, 'POST', `users/records/${a.agent.id}/edit`, {
        name: 'Renamed Agent',
        email: a.agent.email,
        role: 'agent',
      });
      expect(rename.body.notice.type).to.equal('success');
      let err: unknown;
      await ctx.services.accounts.updateUser(a.seller.actor, admin.id, { active: false }).catch((e) => {
        err = e;
      });
      expect((err as Error)?.name).to.equal('ForbiddenError');
    });

    it('When a seller with a DELETE LEADS token is demoted to agent, Then the token stops deleting at once, and works again when restored', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const token = await acc.token();
      const call = restClient(web.url, token);
      const { references } = await ctx.services.leads.createMany(acc.seller.actor, {
        leads: [
          { phone: '+212611223344', full_name: 'Kept', products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }] },
        ],
      });
      await ctx.services.accounts.updateUser(sys, acc.seller.id, { role: 'agent' });
      const refused = await call('DELETE', '/leads', { references });
      expect(refused.status).to.equal(403);
      expect(
        (
          await call('POST', '/leads', {
            leads: [
              {
                phone: '+212611223345',
                full_name: 'Refused',
                products: [{ sku: acc.skus.active[0], quantity: 1, price: 1 }],
              },
            ],
          })
        ).status,
      ).to.equal(403);
      expect((await call('GET', '/leads')).status).to.equal(200);
      expect(await ctx.models.Lead.count({ where: { reference: references } })).to.equal(1);
      await ctx.services.accounts.updateUser(sys, acc.seller.id, { role: 'seller' });
      expect((await call('DELETE', '/leads', { references })).status).to.equal(200);
    });

    it("When a seller revokes an admin's API key of the same account (panel, dashboard, bulk), Then the key stays valid", async () => {
      const ctx = getCtx();
      const admin = await makeUser(ctx, a.id, 'admin');
      const created = await ctx.services.tokens.createToken(sys, {
        user_id: admin.id,
        name: 'admin key',
        scopes: ['VIEW LEADS'],
      });
      const own = (await ctx.models.ApiToken.findOne({ where: { account_id: a.id, user_id: a.seller.id } }))!;
      expect((await panel(seller, 'POST', `api_tokens/records/${created.id}/delete`)).body.notice.type).to.equal(
        'error',
      );
      expect(
        (await panel(seller, 'POST', `api_tokens/bulk/bulkDelete?recordIds=${own.id},${created.id}`)).body.notice.type,
      ).to.equal('error');
      expect((await seller.json('DELETE', `/settings/api-keys/${created.id}/delete`)).status).to.equal(403);
      expect((await restClient(web.url, created.token)('GET', '/leads')).status).to.equal(200);
      expect(await ctx.models.ApiToken.count({ where: { id: [own.id, created.id] } })).to.equal(2);
    });

    it("When a bulk user delete includes the seller's own login, Then nobody is deleted", async () => {
      const ctx = getCtx();
      const extra = await makeUser(ctx, a.id, 'agent');
      const res = await panel(seller, 'POST', `users/bulk/bulkDelete?recordIds=${extra.id},${a.seller.id}`);
      expect(res.body.notice.type).to.equal('error');
      expect(res.body.notice.message).to.include('own login');
      expect(await ctx.models.User.count({ where: { id: [extra.id, a.seller.id] } })).to.equal(2);
    });

    it('When a seller generates a token for an admin of the account, Then it is refused', async () => {
      const ctx = getCtx();
      const admin = await makeUser(ctx, a.id, 'admin');
      let err: unknown;
      await ctx.services.tokens
        .createToken(a.seller.actor, { user_id: admin.id, name: 'escalate', scopes: ['VIEW LEADS'] })
        .catch((e) => {
          err = e;
        });
      expect((err as Error)?.name).to.equal('ForbiddenError');
    });
  });

  describe('state changes only on POST', () => {
    it('When delete, bulk delete, push, export or revoke are requested with GET, Then nothing changes; the same with POST acts', async () => {
      const ctx = getCtx();
      const lead = (await ctx.models.Lead.findOne({ where: { account_id: a.id, status: 'new' } }))!;
      const order = (await ctx.models.Order.findOne({ where: { account_id: a.id } }))!;
      const token = (await ctx.models.ApiToken.findOne({ where: { account_id: a.id, user_id: a.seller.id } }))!;
      const exports = await ctx.models.ExportRun.count({ where: { account_id: a.id } });
      for (const path of [
        `leads/records/${lead.id}/delete`,
        `leads/bulk/bulkDelete?recordIds=${lead.id}`,
        `orders/bulk/pushToShipping?recordIds=${order.id}`,
        'leads/actions/exportCsv',
        'leads/actions/exportXlsx',
        `api_tokens/records/${token.id}/delete`,
        `api_tokens/bulk/bulkDelete?recordIds=${token.id}`,
      ]) {
        const res = await panel(seller, 'GET', path);
        expect(res.status, path).to.be.below(500);
        expect(res.body?.notice?.type ?? 'none', path).to.not.equal('success');
      }
      expect(await ctx.models.Lead.count({ where: { id: lead.id } })).to.equal(1);
      expect((await ctx.models.Order.findByPk(order.id))!.push_state).to.equal(order.push_state);
      expect(await ctx.models.ExportRun.count({ where: { account_id: a.id } })).to.equal(exports);
      expect(await ctx.models.ApiToken.count({ where: { id: token.id } })).to.equal(1);

      expect((await panel(seller, 'POST', `leads/records/${lead.id}/delete`)).body.notice.type).to.equal('success');
      expect(await ctx.models.Lead.count({ where: { id: lead.id } })).to.equal(0);
      expect((await panel(seller, 'POST', 'leads/actions/exportCsv')).body.notice.type).to.equal('success');
      expect(await ctx.models.ExportRun.count({ where: { account_id: a.id } })).to.equal(exports + 1);
      expect((await panel(seller, 'POST', `api_tokens/records/${token.id}/delete`)).body.notice.type).to.equal(
        'success',
      );
      expect(await ctx.models.ApiToken.count({ where: { id: token.id } })).to.equal(0);
    });

    it('When a bulk delete mixes an own id with a foreign one, Then nothing is deleted', async () => {
      const ctx = getCtx();
      const own =
        (await ctx.models.Lead.findOne({ where: { account_id: a.id, status: 'new' } })) ??
        (await ctx.models.Lead.findOne({ where: { account_id: a.id } }))!;
      const foreign = b.leadIds[1];
      const res = await panel(seller, 'POST', `leads/bulk/bulkDelete?recordIds=${own.id},${foreign}`);
      expect(res.body.notice.type).to.equal('error');
      expect(await ctx.models.Lead.count({ where: { id: [own.id, foreign] } })).to.equal(2);
    });
  });

  describe("another account's record looks exactly like an unknown one", () => {
    const sameAnswer = (
      x: { status: number; text: string },
      y: { status: number; text: string },
      ids: [string | number, string | number],
    ) => {
      expect(x.status).to.equal(y.status);
      expect(x.text.split(String(ids[0])).join('ID')).to.equal(y.text.split(String(ids[1])).join('ID'));
    };

    it("When the panel is asked for B's records by id, Then each answer equals the one for an id that does not exist", async () => {
      const foreignLead = b.leadIds[1];
      const unknown = 2_000_000_000;
      for (const action of ['show', 'edit', 'delete']) {
        for (const method of ['GET', 'POST']) {
          const f = await panel(seller, method, `leads/records/${foreignLead}/${action}`);
          const u = await panel(seller, method, `leads/records/${unknown}/${action}`);
          sameAnswer(f, u, [foreignLead, unknown]);
        }
      }
    });

    it("When the REST API and the dashboard routes are asked for B's records, Then each answer equals the one for an unknown record", async () => {
      const ctx = getCtx();
      const foreign = (await ctx.models.Lead.findByPk(b.leadIds[1]))!;
      const rest = restClient(web.url, await a.token());
      const f = await rest('GET', `/leads/${foreign.reference}/show`);
      const u = await rest('GET', '/leads/LDNOSUCHLEAD/show');
      expect([f.status, f.body]).to.deep.equal([u.status, u.body]);
      const put = [
        await rest('PUT', '/leads', { leads: [{ reference: foreign.reference, status: 'wrong' }] }),
        await rest('PUT', '/leads', { leads: [{ reference: 'LDNOSUCHLEAD', status: 'wrong' }] }),
      ];
      expect(put[0].status).to.equal(put[1].status);
      expect(JSON.stringify(put[0].body).replace(foreign.reference, 'REF')).to.equal(
        JSON.stringify(put[1].body).replace('LDNOSUCHLEAD', 'REF'),
      );

      const foreignToken = (await ctx.models.ApiToken.findOne({ where: { account_id: b.id } }))!;
      const foreignImport = (await ctx.models.ImportRun.findOne({ where: { account_id: b.id } }))!;
      const foreignExport = (await ctx.models.ExportRun.findOne({ where: { account_id: b.id } }))!;
      // each path with the id of account B's own row of that kind
      for (const [method, path, id, body] of [
        ['GET', '/leads/{id}/show', foreign.id, undefined],
        ['PATCH', '/leads/{id}/update', foreign.id, { status: 'wrong', full_name: 'x', phone: '+212600000009' }],
        ['DELETE', '/settings/api-keys/{id}/delete', foreignToken.id, undefined],
        ['GET', '/imports/{id}/report', foreignImport.id, undefined],
        ['GET', '/exports/{id}/download', foreignExport.id, undefined],
      ] as const) {
        const fRes = await seller.json(method, path.replace('{id}', String(id)), body);
        const uRes = await seller.json(method, path.replace('{id}', '2000000000'), body);
        expect([fRes.status, fRes.body], `${method} ${path}`).to.deep.equal([uRes.status, uRes.body]);
      }
      expect((await ctx.models.Lead.findByPk(foreign.id))!.status).to.equal(foreign.status);
      expect(await ctx.models.ApiToken.count({ where: { id: foreignToken.id } })).to.equal(1);
    });

    it('When AdminJS refuses an action, Then its notice texts carry no unfilled placeholders', async () => {
      // The texts the browser translates notices with travel in the page's initial state.
      const page = await (await agent.fetch('/admin', { headers: { accept: 'text/html' } })).text();
      const messages: Record<string, string> = {};
      for (const key of [
        'forbiddenError',
        'anyForbiddenError',
        'error404Record',
        'error404Action',
        'error404Resource',
      ]) {
        const m = new RegExp(`\\\\?"${key}\\\\?":\\\\?"([^"\\\\]*)`).exec(page);
        expect(m, key).to.not.equal(null);
        messages[key] = m![1];
        expect(messages[key], key).to.not.include('{{');
      }
      const refused = await panel(agent, 'POST', `leads/records/${a.leadIds[1]}/delete`);
      expect(refused.body.notice.type).to.equal('error');
      expect(messages[refused.body.notice.message] ?? refused.body.notice.message).to.not.include('{{');
    });
  });

  describe('carrier answers', () => {
    it('When the carrier endpoint echoes the request, Then the kept push error carries neither the API key nor the secret', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const echo = http.createServer((req, res) => {
        res.statusCode = 500;
        res.end(JSON.stringify({ key: req.headers['x-api-key'], secret: 'echo-hmac-secret-0123456789' }));
      });
      await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
      try {
        await ctx.services.shipping.createCompany(sys, {
          account_id: acc.id,
          code: 'echo',
          name: 'Echo',
          endpoint_url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/`,
          api_key: 'echo-api-key-0123456789',
          hmac_secret: 'echo-hmac-secret-0123456789',
        });
        const { references } = await ctx.services.orders.createMany(acc.seller.actor, {
          orders: [
            {
              phone: '+212600111222',
              full_name: 'Echo Customer',
              products: [{ sku: acc.skus.active[0], quantity: 1, price: 10 }],
            },
          ],
        });
        await ctx.services.orders.push(acc.seller.actor, { references, shipping_company: 'echo' });
        const order = (await ctx.models.Order.findOne({ where: { reference: references[0] } }))!;
        await ctx.services.orders.pushOne(order.id, 'test', null).catch(() => {});
        const kept = (await ctx.models.Order.findByPk(order.id))!.last_push_error ?? '';
        expect(kept).to.match(/HTTP 500/);
        expect(kept).to.not.include('echo-api-key-0123456789').and.not.include('echo-hmac-secret-0123456789');
      } finally {
        echo.close();
      }
    });
  });

  describe("an admin acts on any account's orders", () => {
    it("When an admin edits, pushes and deletes another account's orders in the panel, Then they change there, pushed with that account's carrier", async () => {
      const ctx = getCtx();
      const admin = await makeAdmin(ctx);
      const c = await login(web.url, admin.email, admin.password);
      const item = (i: number) => ({
        phone: `+21260099${String(b.id % 1000).padStart(3, '0')}${i}`,
        full_name: `Admin Target ${i}`,
        products: [{ sku: b.skus.active[0], quantity: 1, price: 10 }],
      });
      const { references } = await ctx.services.orders.createMany(b.seller.actor, {
        orders: [item(1), item(2), item(3)],
      });
      const [edited, pushed, removed] = await Promise.all(
        references.map(
          async (reference) => (await ctx.models.Order.findOne({ where: { account_id: b.id, reference } }))!,
        ),
      );

      const edit = await panel(c, 'POST', `orders/records/${edited.id}/edit`, { status: 'canceled' });
      expect(edit.body.notice, edit.text).to.include({ type: 'success' });
      expect((await edited.reload()).status).to.equal('canceled');

      const push = await panel(c, 'POST', `orders/bulk/pushToShipping?recordIds=${pushed.id}`);
      expect(push.body.notice, push.text).to.include({ type: 'success' });
      const carrier = (await ctx.models.ShippingCompany.findOne({ where: { account_id: b.id } }))!;
      expect(push.body.notice.message).to.equal(`1 order queued for ${carrier.name}.`);
      expect(await pushed.reload()).to.include({ push_state: 'queued', shipping_company_id: carrier.id });

      // orders of two accounts in one push: refused, nothing queued
      const own = (await ctx.models.Order.findOne({ where: { account_id: a.id } }))!;
      const mixed = await panel(c, 'POST', `orders/bulk/pushToShipping?recordIds=${own.id},${removed.id}`);
      expect(mixed.body.notice?.type ?? 'error', mixed.text).to.not.equal('success');
      expect((await removed.reload()).push_state).to.equal(null);

      const del = await panel(c, 'POST', `orders/bulk/bulkDelete?recordIds=${edited.id},${removed.id}`);
      expect(del.body.notice, del.text).to.include({ type: 'success' });
      expect(await ctx.models.Order.count({ where: { id: [edited.id, removed.id] } })).to.equal(0);

      // a seller of account A still reaches none of them
      const foreign = await panel(seller, 'POST', `orders/records/${pushed.id}/edit`, { status: 'canceled' });
      expect(foreign.body?.notice?.type ?? 'error').to.not.equal('success');
      expect((await pushed.reload()).status).to.equal('new');
    });
  });

  describe('lead edits and exports', () => {
    it('When a lead with a free-text city is edited in the panel without touching the city, Then the city stays', async () => {
      const ctx = getCtx();
      const lead = (await ctx.models.Lead.findOne({ where: { account_id: a.id, city: 'Town finding-a' } }))!;
      const res = await panel(seller, 'POST', `leads/records/${lead.id}/edit`, {
        phone: lead.phone,
        full_name: 'Edited Name',
        status: lead.status,
        city_id: '',
      });
      expect(res.body.notice.type).to.equal('success');
      const after = (await ctx.models.Lead.findByPk(lead.id))!;
      expect([after.full_name, after.city]).to.deep.equal(['Edited Name', 'Town finding-a']);
    });

    it("When an admin exports with an account filter, Then the file holds that account's leads; a seller's foreign filter exports only their own", async () => {
      const ctx = getCtx();
      const admin = await makeAdmin(ctx);
      const adminClient = await login(web.url, admin.email, admin.password);
      const runOf = async (c: SessionClient, userId: number) => {
        expect(
          (await panel(c, 'POST', `leads/actions/exportCsv?filters.account_id=${b.id}`)).body.notice.type,
        ).to.equal('success');
        const run = (await ctx.models.ExportRun.findOne({ where: { user_id: userId }, order: [['id', 'DESC']] }))!;
        await ctx.services.exports.run(run.id);
        await run.reload();
        return fs.readFileSync(run.file_path!, 'utf8');
      };
      const adminFile = await runOf(adminClient, admin.id);
      expect(adminFile).to.include('Customer finding-b').and.not.include('Customer finding-a');
      const sellerFile = await runOf(seller, a.seller.id);
      expect(sellerFile).to.not.include('Customer finding-b');
    });
  });
});
