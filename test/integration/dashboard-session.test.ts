import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { runResetJobs } from '../reset-jobs.js';
import { formLogin, login, sessionClient } from '../session.js';

function lastMailTo(email: string): { subject: string; text: string } | null {
  const dir = path.join(getCtx().config.dataDir, 'outbox');
  if (!fs.existsSync(dir)) return null;
  const mails = fs
    .readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  return mails.filter((m) => m.to === email).pop() ?? null;
}

describe('dashboard sessions', () => {
  const web = useTestServer();

  it('logs in with the right password and answers 401 for a wrong one', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const me = await c.json('GET', '/leads');
    expect(me.status).to.equal(200);
    const bad = sessionClient(web.url);
    bad.csrf = (await bad.json('GET', '/csrf-token')).body.token;
    const res = await bad.json('POST', '/login', { email: acc.seller.email, password: 'wrong-password' });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal({ message: 'These credentials do not match our records.' });
  });

  it('regenerates the session id at login and sets a hardened cookie', async () => {
    const acc = await makeAccount(getCtx());
    const c = sessionClient(web.url);
    c.csrf = (await c.json('GET', '/csrf-token')).body.token;
    const first = await c.json('POST', '/login', { email: acc.agent.email, password: acc.agent.password });
    expect(first.status).to.equal(200);
    const agentSid = c.cookies.get('leadflow.sid');
    expect(agentSid).to.be.a('string');
    c.csrf = first.body.csrf_token;
    // a second login on the same browser gets a new session; the first one is gone from the store
    const res = await c.fetch('/login', {
      method: 'POST',
      json: { email: acc.seller.email, password: acc.seller.password },
    });
    expect(res.status).to.equal(200);
    const setCookie = res.headers.getSetCookie().find((s) => s.startsWith('leadflow.sid='))!;
    expect(setCookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Lax/i);
    expect(c.cookies.get('leadflow.sid')).to.be.a('string').and.not.equal(agentSid);
    const sid = (v: string) => decodeURIComponent(v).replace(/^s:/, '').split('.')[0];
    expect(await getCtx().models.Session.count({ where: { sid: sid(agentSid!) } })).to.equal(0);
    expect(await getCtx().models.Session.count({ where: { sid: sid(c.cookies.get('leadflow.sid')!) } })).to.equal(1);
  });

  it('throttles the 6th failed login of an email + IP within a minute with 429', async () => {
    const acc = await makeAccount(getCtx());
    const c = sessionClient(web.url);
    c.csrf = (await c.json('GET', '/csrf-token')).body.token;
    const statuses = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await c.json('POST', '/login', { email: acc.agent.email, password: 'nope-nope' })).status);
    expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429]);
    const blocked = await c.json('POST', '/login', { email: acc.agent.email, password: acc.agent.password });
    expect(blocked.status).to.equal(429);
    expect(blocked.body.message).to.match(/Too many login attempts/);
    const other = await c.json('POST', '/login', { email: acc.seller.email, password: acc.seller.password });
    expect(other.status).to.equal(200);
  });

  it('logout invalidates the old cookie', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const oldCookie = c.cookies.get('leadflow.sid')!;
    expect((await c.json('POST', '/logout')).status).to.equal(200);
    const replay = await fetch(`${web.url}/leads`, {
      headers: { cookie: `leadflow.sid=${oldCookie}`, accept: 'application/json' },
    });
    expect(replay.status).to.equal(401);
    expect(await getCtx().models.Session.count({ where: { user_id: acc.seller.id } })).to.equal(0);
  });

  it('rejects a mutation without the CSRF token with 403 and changes nothing', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const res = await c.fetch('/leads/store', {
      method: 'POST',
      json: { name: '0612345678', status: 'new' },
      headers: { 'x-csrf-token': 'forged' },
    });
    expect(res.status).to.equal(403);
    expect(await res.json()).to.deep.equal({ message: 'CSRF token mismatch.' });
    expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(0);
    const noToken = await fetch(`${web.url}/logout`, {
      method: 'POST',
      headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '), accept: 'application/json' },
    });
    expect(noToken.status).to.equal(403);
  });

  it('sends browsers to the login page and JSON clients a 401', async () => {
    const html = await fetch(`${web.url}/leads`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(html.status).to.equal(302);
    expect(html.headers.get('location')).to.equal('/login?next=%2Fleads');
    const json = await fetch(`${web.url}/leads`, { headers: { accept: 'application/json' } });
    expect(json.status).to.equal(401);
    expect(await json.json()).to.deep.equal({ message: 'Unauthenticated.' });
    const page = await fetch(`${web.url}/login`);
    expect(await page.text()).to.include('name="_csrf"');
  });

  it('logs a browser in through the HTML form and redirects to the panel', async () => {
    const acc = await makeAccount(getCtx());
    const res = await formLogin(web.url, acc.seller.email, acc.seller.password);
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/admin');
  });

  describe('password reset', () => {
    it('answers the same 200 for known and unknown emails and mails a single-use link', async () => {
      const acc = await makeAccount(getCtx());
      const c = sessionClient(web.url);
      c.csrf = (await c.json('GET', '/csrf-token')).body.token;
      const unknown = await c.json('POST', '/reset-password', { email: 'nobody@nowhere.test' });
      const known = await c.json('POST', '/reset-password', { email: acc.agent.email });
      expect(unknown.status).to.equal(200);
      expect(known.status).to.equal(200);
      expect(known.body).to.deep.equal(unknown.body);
      // the lookup and the mail are the job's (off the request path): one mail, for the known email only
      const asked = ['nobody@nowhere.test', acc.agent.email];
      expect((await runResetJobs(getCtx(), asked)).sort()).to.deep.equal(['sent', 'unknown']);
      const mail = lastMailTo(acc.agent.email)!;
      expect(mail.subject).to.match(/Reset/);
      const token = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail.text)![1];

      const session = await login(web.url, acc.agent.email, acc.agent.password);
      expect((await fetch(`${web.url}/reset-password/${token}`)).status).to.equal(200);
      const mismatch = await c.json('POST', `/reset-password/${token}`, {
        password: 'new-password-1',
        password_confirmation: 'other-password',
      });
      expect(mismatch.status).to.equal(422);
      const ok = await c.json('POST', `/reset-password/${token}`, {
        password: 'new-password-1',
        password_confirmation: 'new-password-1',
      });
      expect(ok.status).to.equal(200);
      const again = await c.json('POST', `/reset-password/${token}`, {
        password: 'new-password-2',
        password_confirmation: 'new-password-2',
      });
      expect(again.status).to.equal(422);
      expect((await fetch(`${web.url}/reset-password/${token}`)).status).to.equal(410);
      expect((await session.json('GET', '/leads')).status).to.equal(401);
      await login(web.url, acc.agent.email, 'new-password-1');
      let failed = false;
      try {
        await login(web.url, acc.agent.email, acc.agent.password);
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
    });

    it('refuses an expired link', async () => {
      const acc = await makeAccount(getCtx());
      const c = sessionClient(web.url);
      c.csrf = (await c.json('GET', '/csrf-token')).body.token;
      await c.json('POST', '/reset-password', { email: acc.seller.email });
      await runResetJobs();
      const token = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(lastMailTo(acc.seller.email)!.text)![1];
      await getCtx().models.PasswordReset.update(
        { expires_at: new Date(Date.now() - 1000) },
        { where: { user_id: acc.seller.id } },
      );
      const res = await c.json('POST', `/reset-password/${token}`, {
        password: 'new-password-1',
        password_confirmation: 'new-password-1',
      });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.have.property('token');
    });
  });

  describe('API keys', () => {
    it('generates a token shown once that works on the REST API with exactly its scopes, lists it without the secret, and revokes it', async () => {
      const acc = await makeAccount(getCtx());
      const c = await login(web.url, acc.seller.email, acc.seller.password);
      const gen = await c.json('POST', '/settings/api-keys/generate', { name: 'shop', scopes: ['VIEW LEADS'] });
      expect(gen.status).to.equal(201);
      const token = gen.body.data.token as string;
      expect(token).to.match(/^\d+\|[A-Za-z0-9_-]{40}$/);
      const list = await c.json('GET', '/settings/api-keys');
      expect(list.body.data).to.have.length(1);
      expect(list.body.data[0])
        .to.include({ name: 'shop' })
        .and.to.have.keys(
          'id',
          'account_id',
          'name',
          'scopes',
          'created_by',
          'last_used_at',
          'expires_at',
          'created_at',
        );
      expect(JSON.stringify(list.body)).to.not.include(token.split('|')[1]);
      const rest = restClient(web.url, token);
      expect((await rest('GET', '/leads')).status).to.equal(200);
      expect((await rest('POST', '/leads', { leads: [] })).status).to.equal(403);
      expect((await rest('GET', '/order-histories')).status).to.equal(403);
      // last_used_at is written in the background (at most once a minute per token), never on the request's path.
      let usedAt: string | null = null;
      for (let i = 0; i < 20 && !usedAt; i++) {
        usedAt = (await c.json('GET', '/settings/api-keys')).body.data[0].last_used_at;
        if (!usedAt) await new Promise((r) => setTimeout(r, 50));
      }
      expect(Date.now() - Date.parse(usedAt!)).to.be.below(60_000);
      const del = await c.json('DELETE', `/settings/api-keys/${gen.body.data.id}/delete`);
      expect(del.status).to.equal(200);
      expect((await rest('GET', '/leads')).status).to.equal(401);
    });

    it("validates name and scopes, and hides other accounts' keys", async () => {
      const acc = await makeAccount(getCtx());
      const other = await makeAccount(getCtx());
      await other.token();
      const otherId = (await getCtx().models.ApiToken.findOne({ where: { account_id: other.id } }))!.id;
      const c = await login(web.url, acc.seller.email, acc.seller.password);
      expect(
        (await c.json('POST', '/settings/api-keys/generate', { name: '', scopes: ['VIEW LEADS'] })).status,
      ).to.equal(422);
      expect(
        (await c.json('POST', '/settings/api-keys/generate', { name: 'x', scopes: ['ROOT'] })).body.errors,
      ).to.have.property('scopes.0');
      expect((await c.json('POST', '/settings/api-keys/generate', { name: 'x', scopes: [] })).status).to.equal(422);
      expect((await c.json('GET', '/settings/api-keys')).body.data).to.have.length(0);
      expect((await c.json('DELETE', `/settings/api-keys/${otherId}/delete`)).status).to.equal(404);
      expect(await getCtx().models.ApiToken.count({ where: { id: otherId } })).to.equal(1);
    });

    it('denies agents every token action with 403', async () => {
      const acc = await makeAccount(getCtx());
      const c = await login(web.url, acc.agent.email, acc.agent.password);
      expect((await c.json('GET', '/settings/api-keys')).status).to.equal(403);
      expect(
        (await c.json('POST', '/settings/api-keys/generate', { name: 'x', scopes: ['VIEW LEADS'] })).status,
      ).to.equal(403);
    });
  });
});
