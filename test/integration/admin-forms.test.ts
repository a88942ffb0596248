import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount, type TestUser, uid } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, type SessionClient, panelApi } from '../session.js';

type Answer = { status: number; text: string; body: any };
type Json = Record<string, unknown>;

/** Rows of `table` in the account, for "it landed there" and "nothing changed". */
async function countIn(table: string, accountId: number): Promise<number> {
  const [row] = await getCtx().db.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${table}" WHERE account_id = :accountId`,
    { replacements: { accountId }, type: 'SELECT' as never },
  );
  return row.n;
}

/**
 * Each create form of the panel with a fresh body (a unique code, sku, email, phone): the table it writes, and for an
 * admin, the other fields the form requires besides the account (an API key's owner, a user of the chosen account).
 */
function createForms(b: TestAccount): { resource: string; table: string; body: () => Json; admin?: Json }[] {
  const phone = () => `+21261${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  return [
    { resource: 'leads', table: 'leads', body: () => ({ phone: phone(), full_name: 'Chosen Account', status: 'new' }) },
    { resource: 'products', table: 'products', body: () => ({ sku: `P${uid()}`, name: 'Chosen', price: '10' }) },
    {
      resource: 'shipping_companies',
      table: 'shipping_companies',
      body: () => ({ code: `c${uid()}`.slice(0, 20), name: 'Chosen Carrier', endpoint_url: 'http://127.0.0.1:9/c' }),
    },
    {
      resource: 'webhook_endpoints',
      table: 'webhook_endpoints',
      body: () => ({ url: `http://127.0.0.1:9/${uid()}`, 'events.0': 'lead.created', active: 'true' }),
    },
    {
      resource: 'api_tokens',
      table: 'api_tokens',
      body: () => ({ name: `key ${uid()}`, 'scopes.0': 'VIEW LEADS' }),
      admin: { user_id: String(b.seller.id) },
    },
    {
      resource: 'users',
      table: 'users',
      body: () => ({ name: 'Chosen User', email: `u-${uid()}@test.local`, role: 'agent', password: 'password-123' }),
    },
  ];
}

describe('admin panel create forms: the account an admin chooses, and none for tenants', function () {
  this.timeout(120_000);
  const web = useTestServer();
  let a: TestAccount;
  let b: TestAccount;
  let admin: TestUser;
  let adminClient: SessionClient;
  let seller: SessionClient;

  const panel = (c: SessionClient, method: string, path: string, json?: unknown): Promise<Answer> =>
    panelApi(c, web.url, method, path, json);

  before(async () => {
    const ctx = getCtx();
    a = await makeAccount(ctx);
    b = await makeAccount(ctx);
    admin = await makeAdmin(ctx);
    adminClient = await login(web.url, admin.email, admin.password);
    seller = await login(web.url, a.seller.email, a.seller.password);
  });

  describe('the services', () => {
    it("When an admin creates a lead, carrier, product or API key for account B, Then it is B's", async () => {
      const { services } = getCtx();
      const lead = await services.leads.createOne(admin.actor, {
        name: '+212612000001',
        status: 'new',
        account_id: b.id,
      });
      expect(lead.account_id).to.equal(b.id);
      const carrier = await services.shipping.createCompany(admin.actor, {
        account_id: b.id,
        code: `s${uid()}`.slice(0, 20),
        name: 'Service Carrier',
        endpoint_url: 'http://127.0.0.1:9/s',
      });
      expect(carrier.account_id).to.equal(b.id);
      const product = await services.catalogue.createProduct(admin.actor, {
        account_id: b.id,
        sku: `S${uid()}`,
        name: 'x',
        price: 1,
      });
      expect(product.account_id).to.equal(b.id);
      const token = await services.tokens.createToken(admin.actor, {
        account_id: b.id,
        user_id: b.seller.id,
        name: 'for B',
        scopes: ['VIEW LEADS'],
      });
      expect(token.account_id).to.equal(b.id);
    });

    it('When an admin names an account that does not exist (or an odd value), Then each create is refused under account_id', async () => {
      const { services } = getCtx();
      const unknown = 2_000_000_000;
      const tries: Promise<unknown>[] = [
        services.leads.createOne(admin.actor, { name: '+212612000002', status: 'new', account_id: unknown }),
        services.shipping.createCompany(admin.actor, {
          account_id: unknown,
          code: 'nowhere',
          name: 'Nowhere',
          endpoint_url: 'http://127.0.0.1:9/n',
        }),
        services.catalogue.createProduct(admin.actor, { account_id: unknown, sku: 'NOWHERE', name: 'x', price: 1 }),
        services.tokens.createToken(admin.actor, {
          account_id: unknown,
          user_id: b.seller.id,
          name: 'x',
          scopes: ['VIEW LEADS'],
        }),
        services.leads.createOne(admin.actor, { name: '+212612000003', status: 'new', account_id: 'abc' as never }),
        services.leads.createOne(admin.actor, { name: '+212612000004', status: 'new', account_id: -1 }),
      ];
      for (const attempt of tries) {
        const err = (await attempt.then(
          () => null,
          (e: unknown) => e,
        )) as { errors?: Record<string, string[]> } | null;
        expect(err?.errors, JSON.stringify(err)).to.have.property('account_id');
      }
    });

    it("When an admin names account B and a user of A as the key's owner, Then the key is refused under user_id", async () => {
      const err = (await getCtx()
        .services.tokens.createToken(admin.actor, {
          account_id: b.id,
          user_id: a.seller.id,
          name: 'mismatch',
          scopes: ['VIEW LEADS'],
        })
        .catch((e: unknown) => e)) as { errors?: Record<string, string[]> };
      expect(err.errors).to.have.property('user_id');
    });

    it("When a seller names account B on a create, Then the row is the seller's own and B has nothing new", async () => {
      const { services } = getCtx();
      const before = await countIn('leads', b.id);
      const lead = await services.leads.createOne(a.seller.actor, {
        name: '+212612000005',
        status: 'new',
        account_id: b.id,
      });
      const token = await services.tokens.createToken(a.seller.actor, {
        account_id: b.id,
        name: 'tenant',
        scopes: ['VIEW LEADS'],
      });
      const product = await services.catalogue.createProduct(a.seller.actor, {
        account_id: b.id,
        sku: `T${uid()}`,
        name: 'x',
        price: 1,
      });
      expect([lead.account_id, token.account_id, product.account_id]).to.deep.equal([a.id, a.id, a.id]);
      expect(await countIn('leads', b.id)).to.equal(before);
      const foreignOwner = await services.tokens
        .createToken(a.seller.actor, { user_id: b.seller.id, name: 'x', scopes: ['VIEW LEADS'] })
        .catch((e: { errors?: object }) => e.errors);
      expect(foreignOwner).to.have.property('user_id');
    });
  });

  describe('the panel', () => {
    it('When an admin saves each create form for account B, Then each row lands in B', async () => {
      for (const form of createForms(b)) {
        const before = await countIn(form.table, b.id);
        const res = await panel(adminClient, 'POST', `${form.resource}/actions/new`, {
          ...form.body(),
          ...form.admin,
          account_id: String(b.id),
        });
        expect(res.body?.record?.errors ?? {}, `${form.resource}: ${res.text.slice(0, 300)}`).to.deep.equal({});
        expect(Number(res.body.record.params.account_id), form.resource).to.equal(b.id);
        expect(await countIn(form.table, b.id), form.resource).to.equal(before + 1);
      }
    });

    it('When an admin saves a create form without an account, Then it is refused under Account and nothing is created', async () => {
      const own = admin.actor.accountId as number;
      for (const form of createForms(b)) {
        const before = await countIn(form.table, own);
        const res = await panel(adminClient, 'POST', `${form.resource}/actions/new`, { ...form.body(), ...form.admin });
        expect(res.body?.record?.errors, `${form.resource}: ${res.text.slice(0, 300)}`).to.have.property('account_id');
        expect(await countIn(form.table, own), form.resource).to.equal(before);
      }
    });

    it('When an admin posts an odd account (text, negative, unknown, a list), Then nothing is created anywhere', async () => {
      for (const odd of ['abc', '-1', '1.5', '2000000000', ['1', '2']]) {
        const before = await countIn('leads', b.id);
        const res = await panel(adminClient, 'POST', 'leads/actions/new', {
          ...createForms(b)[0].body(),
          account_id: odd,
        });
        expect(res.status, res.text).to.be.below(500);
        expect(res.body?.notice?.type ?? 'error', JSON.stringify(odd)).to.not.equal('success');
        expect(await countIn('leads', b.id)).to.equal(before);
      }
    });

    it("When a seller posts account B's id (and B's user as owner) on each create form, Then the rows are the seller's and B is unchanged", async () => {
      for (const form of createForms(b)) {
        const beforeB = await countIn(form.table, b.id);
        const res = await panel(seller, 'POST', `${form.resource}/actions/new`, {
          ...form.body(),
          account_id: String(b.id),
          user_id: String(b.seller.id),
        });
        expect(res.status, res.text).to.equal(200);
        expect(await countIn(form.table, b.id), form.resource).to.equal(beforeB);
        // a seller's new user is an invitation (no row); every other create is the seller's own
        if (form.resource !== 'users') expect(Number(res.body.record.params.account_id), form.resource).to.equal(a.id);
      }
    });

    it("When an admin's new lead form lists products for account B, Then they are B's; a seller naming B gets their own", async () => {
      const choices = async (c: SessionClient) =>
        (await panel(c, 'GET', `leads/actions/productChoices?account_id=${b.id}`)).body.products.map(
          (p: { sku: string }) => p.sku,
        );
      const ofAdmin = await choices(adminClient);
      const ofSeller = await choices(seller);
      expect(ofAdmin).to.include.members(b.skus.active).and.not.include.members([a.skus.active[0]]);
      expect(ofSeller).to.include.members(a.skus.active).and.not.include.members([b.skus.active[0]]);
    });
  });

  describe('secrets shown once', () => {
    it('When an API key, a webhook secret or a carrier secret is made, Then it travels for the dialog only, never in the notice', async () => {
      const [, , carrier, hook, key] = createForms(b);
      for (const [form, kind] of [
        [key, 'apiKey'],
        [hook, 'webhookSecret'],
        [carrier, 'hmacSecret'],
      ] as const) {
        const res = await panel(seller, 'POST', `${form.resource}/actions/new`, form.body());
        expect(res.body.secret?.kind, res.text.slice(0, 300)).to.equal(kind);
        expect(res.body.secret.value).to.be.a('string').with.length.above(20);
        expect(JSON.stringify(res.body.notice)).to.not.include(res.body.secret.value);
        expect(res.body.redirectUrl).to.not.include(res.body.secret.value);
        const shown = await panel(seller, 'GET', `${form.resource}/records/${res.body.record.params.id}/show`);
        expect(shown.text).to.not.include(res.body.secret.value);
      }
    });

    it('When a carrier is created with a secret typed in, Then no secret comes back for a dialog', async () => {
      const res = await panel(seller, 'POST', 'shipping_companies/actions/new', {
        ...createForms(b)[2].body(),
        hmac_secret: 'typed-secret-0123456789',
      });
      expect(res.body).to.not.have.property('secret');
      expect(res.text).to.not.include('typed-secret-0123456789');
    });
  });

  describe('carrier form defaults', () => {
    it('When a carrier is saved without a timeout or Active, Then the service defaults apply and the form shows them filled in', async () => {
      const res = await panel(seller, 'POST', 'shipping_companies/actions/new', createForms(b)[2].body());
      expect(res.body.record.params).to.include({ timeout_ms: 5000, active: true });
      const { builtPanel } = await import('../../admin/admin.js');
      const resource = builtPanel()!.findResource('shipping_companies');
      const form = resource.decorate().actions.new;
      expect(
        ((form as unknown as { action: { custom: Json } }).action.custom as { defaults: Json }).defaults,
      ).to.deep.equal({
        timeout_ms: '5000',
        active: 'true',
      });
      const required = Object.fromEntries(
        resource
          .decorate()
          .getProperties({ where: 'edit' })
          .map((p) => [p.propertyPath, p.isRequired()]),
      );
      expect(required).to.include({ code: true, name: true, endpoint_url: true });
      expect(required).to.include({ timeout_ms: false, active: false, api_key: false, hmac_secret: false });
    });
  });

  describe('import and My account', () => {
    const csv = (sku: string) => new Blob([`phone,sku\n+212612${String(Date.now()).slice(-6)},${sku}\n`]);
    const upload = (c: SessionClient, fields: Json, sku: string) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
      form.append('file', csv(sku), 'leads.csv');
      return c.fetch('/leads/import', { method: 'POST', body: form });
    };

    it("When an admin imports for account B, Then the run is B's; a seller naming B imports into their own", async () => {
      // the panel's import page offers an admin the accounts (admin/resources/import-page.ts), a seller none
      const page = await panelApi(adminClient, web.url, 'GET', 'leads/actions/importFile');
      expect(page.body.accounts).to.deep.include({ id: b.id, name: b.name });
      const byAdmin = await upload(adminClient, { account_id: b.id }, b.skus.active[0]);
      expect(byAdmin.status).to.equal(202);
      expect((await byAdmin.json()).data.account_id).to.equal(b.id);
      expect((await panelApi(seller, web.url, 'GET', 'leads/actions/importFile')).body.accounts).to.equal(null);
      const bySeller = await upload(seller, { account_id: b.id }, a.skus.active[0]);
      expect((await bySeller.json()).data.account_id).to.equal(a.id);
      const unknown = await upload(adminClient, { account_id: 'abc' }, b.skus.active[0]);
      expect(unknown.status).to.equal(422);
    });

    it('When an agent opens the import page, Then it is refused before any form is shown', async () => {
      const agent = await login(web.url, a.agent.email, a.agent.password);
      const page = await agent.fetch('/leads/import', { headers: { accept: 'text/html' } });
      expect(page.status).to.equal(403);
      expect(await page.text()).to.not.include('<form');
    });

    it('When a seller and an agent open My account, Then each gets their own account and only what they may do', async () => {
      const agent = await login(web.url, a.agent.email, a.agent.password);
      const page = async (c: SessionClient) =>
        (await c.fetch('/admin/api/pages/account', { headers: { origin: web.url } })).json();
      expect(await page(seller)).to.deep.equal({
        account: { id: a.id, editable: true },
        profile: { id: a.seller.id, editable: true },
      });
      expect(await page(agent)).to.deep.equal({ account: { id: a.id, editable: false }, profile: null });
      const tampered = await seller.fetch(`/admin/api/pages/account?account_id=${b.id}`, {
        headers: { origin: web.url },
      });
      expect((await tampered.json()).account.id).to.equal(a.id);
    });
  });
});
