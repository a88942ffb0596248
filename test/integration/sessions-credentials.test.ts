import { expect } from 'chai';
import { systemActor } from '../../src/actor.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestUser } from '../factories.js';
import { captureSql, useTestServer } from '../helpers.js';
import { lastResetToken, mailsTo, runResetJobs } from '../reset-jobs.js';
import { restClient } from '../rest-client.js';
import { login, sessionClient, type SessionClient } from '../session.js';

/** A client holding a fresh anonymous CSRF token (what the login and reset forms need). */
async function anonymous(url: string): Promise<SessionClient> {
  const c = sessionClient(url);
  c.csrf = (await c.json('GET', '/csrf-token')).body.token;
  return c;
}

describe('sessions and credentials', () => {
  const web = useTestServer();

  const panelEdit = (c: SessionClient, id: number, json: Record<string, unknown>) =>
    c
      .fetch(`/admin/api/resources/users/records/${id}/edit`, { method: 'POST', headers: { origin: web.url }, json })
      .then(async (r) => ({ status: r.status, body: await r.json() }));

  /** A reset link mailed to `user` (through the route and its job). */
  async function resetLink(user: TestUser): Promise<string> {
    const c = await anonymous(web.url);
    expect((await c.json('POST', '/reset-password', { email: user.email })).status).to.equal(200);
    expect(await runResetJobs(getCtx(), user.email)).to.deep.equal(['sent']);
    return lastResetToken(user.email);
  }

  describe('logout', () => {
    it('When the panel Log out is clicked (GET /logout from a page of this site), Then the session ends and its cookie is useless', async () => {
      const acc = await makeAccount(getCtx());
      const c = await login(web.url, acc.seller.email, acc.seller.password);
      const cookie = `leadflow.sid=${c.cookies.get('leadflow.sid')}`;
      // AdminJS's top bar goes to its logoutPath; the old /admin/logout address leads there too
      const old = await c.fetch('/admin/logout', { headers: { accept: 'text/html' } });
      expect([old.status, old.headers.get('location')]).to.deep.equal([303, '/logout']);
      const out = await c.fetch('/logout', { headers: { accept: 'text/html', 'sec-fetch-site': 'same-origin' } });
      expect([out.status, out.headers.get('location')]).to.deep.equal([303, '/login']);
      const replay = { cookie, accept: 'text/html' };
      const page = await fetch(`${web.url}/login`, { headers: replay, redirect: 'manual' });
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include('name="password"');
      const panel = await fetch(`${web.url}/admin`, { headers: replay, redirect: 'manual' });
      expect([panel.status, panel.headers.get('location')]).to.deep.equal([302, '/login?next=%2Fadmin']);
      const json = await fetch(`${web.url}/leads`, { headers: { cookie, accept: 'application/json' } });
      expect(json.status).to.equal(401);
    });

    it('When another site sends a signed-in browser to /logout, Then it gets a page with a CSRF-guarded button and stays signed in', async () => {
      const acc = await makeAccount(getCtx());
      const c = await login(web.url, acc.seller.email, acc.seller.password);
      const tries: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { referer: 'https://evil.example/' },
        {},
      ];
      for (const headers of tries) {
        const res = await c.fetch('/logout', { headers: { accept: 'text/html', ...headers } });
        expect(res.status, JSON.stringify(headers)).to.equal(200);
        expect(await res.text()).to.match(/<form method="post" action="\/logout"><input type="hidden" name="_csrf"/);
        expect((await c.json('GET', '/leads')).status).to.equal(200);
      }
      // a same-origin Referer (a browser without Sec-Fetch-Site) is a click on this site
      const res = await c.fetch('/logout', { headers: { accept: 'text/html', referer: `${web.url}/admin` } });
      expect(res.status).to.equal(303);
      expect((await c.json('GET', '/leads')).status).to.equal(401);
    });
  });

  describe('password change', () => {
    it('When a user changes the password in the panel, Then the other sessions, the API tokens and open reset links end; this session stays', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const here = await login(web.url, acc.seller.email, acc.seller.password);
      const elsewhere = await login(web.url, acc.seller.email, acc.seller.password);
      const token = await acc.token(['VIEW LEADS']);
      const link = await resetLink(acc.seller);
      expect((await restClient(web.url, token)('GET', '/leads')).status).to.equal(200);

      const saved = await panelEdit(here, acc.seller.id, { name: acc.seller.name, password: 'a-new-password-1' });
      expect(saved.body.notice.type).to.equal('success');
      expect((await here.json('GET', '/leads')).status).to.equal(200);
      expect((await elsewhere.json('GET', '/leads')).status).to.equal(401);
      expect((await restClient(web.url, token)('GET', '/leads')).status).to.equal(401);
      expect(await ctx.models.ApiToken.count({ where: { user_id: acc.seller.id } })).to.equal(0);
      expect((await fetch(`${web.url}/reset-password/${link}`)).status).to.equal(410);
      await login(web.url, acc.seller.email, 'a-new-password-1');
    });

    it('When a seller sets an agent’s password, Then every session of the agent ends (the seller’s own stays)', async () => {
      const acc = await makeAccount(getCtx());
      const seller = await login(web.url, acc.seller.email, acc.seller.password);
      const agent = await login(web.url, acc.agent.email, acc.agent.password);
      const saved = await panelEdit(seller, acc.agent.id, { name: acc.agent.name, password: 'agent-password-2' });
      expect(saved.body.notice.type).to.equal('success');
      expect((await agent.json('GET', '/leads')).status).to.equal(401);
      expect((await seller.json('GET', '/leads')).status).to.equal(200);
    });

    it('When an admin changes the email of a login or switches it off, Then reset links mailed before stop working', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const link = await resetLink(acc.agent);
      await ctx.services.accounts.updateUser(systemActor(), acc.agent.id, { email: `moved-${acc.id}@test.local` });
      expect((await fetch(`${web.url}/reset-password/${link}`)).status).to.equal(410);
      const seller = await resetLink(acc.seller);
      await ctx.services.accounts.updateUser(systemActor(), acc.seller.id, { active: false });
      expect((await fetch(`${web.url}/reset-password/${seller}`)).status).to.equal(410);
    });

    it('When a reset link is used, Then older links, every session and the tokens of the user end', async () => {
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const session = await login(web.url, acc.seller.email, acc.seller.password);
      const older = await resetLink(acc.seller);
      // past the one-mail-per-interval rule, a second link; the first stays usable until a reset happens
      await ctx.models.PasswordReset.update(
        { created_at: new Date(Date.now() - 3600_000) },
        { where: { user_id: acc.seller.id } },
      );
      const token = await acc.token(['VIEW LEADS']);
      const newer = await resetLink(acc.seller);
      expect(newer).to.not.equal(older);
      const c = await anonymous(web.url);
      const body = { password: 'reset-password-1', password_confirmation: 'reset-password-1' };
      expect((await c.json('POST', `/reset-password/${newer}`, body)).status).to.equal(200);
      expect((await c.json('POST', `/reset-password/${older}`, body)).status).to.equal(422);
      expect((await fetch(`${web.url}/reset-password/${older}`)).status).to.equal(410);
      expect((await session.json('GET', '/leads')).status).to.equal(401);
      expect((await restClient(web.url, token)('GET', '/leads')).status).to.equal(401);
    });
  });

  describe('reset requests', () => {
    it('When one email asks 30 times, Then one mail is sent (one per RESET_MAIL_INTERVAL_MINUTES)', async () => {
      const acc = await makeAccount(getCtx());
      for (let i = 0; i < 30; i++) await getCtx().services.passwordResets.requestReset(acc.seller.email);
      const outcomes = await runResetJobs(getCtx(), acc.seller.email);
      expect(outcomes.filter((o) => o === 'sent')).to.have.length(1);
      expect(outcomes.filter((o) => o === 'throttled')).to.have.length(29);
      expect(mailsTo(acc.seller.email)).to.have.length(1);
    });

    it('When a known and an unknown email ask, Then both get the same answer and the request reads no user or reset row', async () => {
      const acc = await makeAccount(getCtx());
      const c = await anonymous(web.url);
      const ask = (email: string) =>
        captureSql(getCtx().db.sequelize, () => c.json('POST', '/reset-password', { email }));
      const known = await ask(acc.agent.email);
      const unknown = await ask(`nobody-${acc.id}@nowhere.test`);
      expect(known.result).to.deep.equal(unknown.result);
      expect(known.result.status).to.equal(200);
      const shape = (sent: { sql: string }[]) => sent.map((s) => s.sql.replace(/\$\d+|'[^']*'/g, '?'));
      expect(shape(known.sent)).to.deep.equal(shape(unknown.sent));
      for (const s of [...known.sent, ...unknown.sent]) expect(s.sql).to.not.match(/\b(users|password_resets)\b/);
      await runResetJobs();
    });
  });
});

describe('reset requests per IP', () => {
  const web = useTestServer();

  it('When one client asks more than RESET_REQUESTS_PER_IP times, Then the rest get 429 and still one mail goes out', async () => {
    const acc = await makeAccount(getCtx());
    const c = await anonymous(web.url);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await c.json('POST', '/reset-password', { email: acc.seller.email })).status);
    const limit = getCtx().config.resetRequestsPerIp;
    expect(statuses.slice(0, limit).every((s) => s === 200)).to.equal(true);
    expect(statuses.slice(limit).every((s) => s === 429)).to.equal(true);
    await runResetJobs();
    expect(mailsTo(acc.seller.email)).to.have.length(1);
    const page = await c.fetch('/reset-password', {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: c.csrf, email: acc.seller.email }).toString(),
    });
    expect(page.status).to.equal(429);
    expect(await page.text()).to.include('Too many reset requests');
  });
});
