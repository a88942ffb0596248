import { performance } from 'node:perf_hooks';
import { expect } from 'chai';
import { safeNext } from '../../admin/routes/auth.routes.js';
import { createAccountService } from '../../src/accounts/account.service.js';
import { systemActor } from '../../src/actor.js';
import { createPasswordResetService } from '../../src/auth/password-reset.service.js';
import { isDatabaseUnavailable } from '../../src/db/index.js';
import { createMailer, MailError } from '../../src/mail/mailer.js';
import { hashPassword, needsRehash, verifyPassword } from '../../src/passwords.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { runResetJobs } from '../reset-jobs.js';
import { formLogin, sessionClient } from '../session.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('login hardening', () => {
  const web = useTestServer();

  it('refuses an unknown email in the time a known one takes (argon2id at the production cost, within a factor of 2)', async function () {
    this.timeout(60_000);
    const ctx = getCtx();
    // The login check as production runs it: hashes at the normal cost, the account service the login route calls.
    const accounts = createAccountService({ ...ctx, config: { ...ctx.config, passwordHashCost: 'normal' } });
    const acc = await makeAccount(ctx);
    await ctx.models.User.update(
      { password_hash: await hashPassword('the-real-password', 'normal') },
      { where: { id: acc.agent.id } },
    );
    const known: number[] = [];
    const unknown: number[] = [];
    await accounts.verifyCredentials('warm-up@nowhere.test', 'warm-up');
    for (let i = 0; i < 5; i++) {
      let t = performance.now();
      expect(await accounts.verifyCredentials(acc.agent.email, 'a-wrong-password')).to.equal(null);
      known.push(performance.now() - t);
      t = performance.now();
      expect(await accounts.verifyCredentials(`nobody-${i}@nowhere.test`, 'a-wrong-password')).to.equal(null);
      unknown.push(performance.now() - t);
    }
    const ratio = median(known) / median(unknown);
    expect(ratio, `known ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`).to.be.within(
      0.5,
      2,
    );
  });

  it('verifies hashes made by the argon2 package used before, and replaces a hash made with other parameters at the next login', async function () {
    this.timeout(30_000);
    const ctx = getCtx();
    // made by argon2@0.45 (node-gyp) with its defaults, before the switch to @node-rs/argon2
    const before = '$argon2id$v=19$m=65536,p=4,t=3$Gxu2GAsqyiJrmZO8Wy+1bQ$0rq21LnuuSgSlxyYvalFbTgN6uSShS1+QBKyarDujLs';
    expect(await verifyPassword(before, 'password-from-2025')).to.equal(true);
    expect(await verifyPassword(before, 'password-from-2024')).to.equal(false);
    expect(needsRehash(before, 'normal'), 'same parameters in another order').to.equal(false);
    expect(needsRehash(before, 'fast'), 'a stronger hash is never replaced by a cheaper one').to.equal(false);

    const accounts = createAccountService({ ...ctx, config: { ...ctx.config, passwordHashCost: 'normal' } });
    const acc = await makeAccount(ctx);
    const stored = async () => (await ctx.models.User.scope('withPassword').findByPk(acc.agent.id))!.password_hash;
    // a hash with cheaper parameters (what an older release or a changed default would have left)
    const old = await hashPassword('the-real-password', 'fast');
    await ctx.models.User.update({ password_hash: old }, { where: { id: acc.agent.id } });
    expect(await accounts.verifyCredentials(acc.agent.email, 'a-wrong-password')).to.equal(null);
    expect(await stored(), 'a failed login changes nothing').to.equal(old);
    expect(await accounts.verifyCredentials(acc.agent.email, 'the-real-password')).to.have.property('id', acc.agent.id);
    const upgraded = await stored();
    expect(upgraded).to.match(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    expect(await verifyPassword(upgraded, 'the-real-password')).to.equal(true);
    expect(await accounts.verifyCredentials(acc.agent.email, 'the-real-password')).to.have.property('id', acc.agent.id);
    expect(await stored(), 'an up-to-date hash is left alone').to.equal(upgraded);
  });

  it('reads the credentials from the body only, as the throttle counts them: the query string and non-string emails log nobody in', async () => {
    const acc = await makeAccount(getCtx());
    const c = sessionClient(web.url);
    c.csrf = (await c.json('GET', '/csrf-token')).body.token;
    const query = `?email=${encodeURIComponent(acc.agent.email)}&password=${encodeURIComponent(acc.agent.password)}`;
    for (const body of [
      {},
      { email: 0, password: acc.agent.password },
      { email: [acc.agent.email], password: acc.agent.password },
      { email: acc.agent.email, password: [acc.agent.password] },
    ]) {
      const res = await c.json('POST', `/login${query}`, body);
      expect(res.status, JSON.stringify(body)).to.equal(401);
    }
    expect((await c.json('GET', '/leads')).status).to.equal(401);
    // Five wrong passwords for the agent block the sixth try of that email, whatever the query string says.
    for (let i = 0; i < 5; i++) await c.json('POST', '/login', { email: acc.agent.email, password: 'wrong-password' });
    expect(
      (
        await c.json('POST', `/login${query}`, {
          email: ` ${acc.agent.email.toUpperCase()} `,
          password: acc.agent.password,
        })
      ).status,
    ).to.equal(429);
  });

  it('answers a reset request for a registered email the same when the mail server fails, and never as a database outage', async function () {
    this.timeout(20_000);
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    // nothing listens on port 9: the SMTP connection is refused (ECONNREFUSED, a code a database outage also has)
    const mailer = createMailer({ ...ctx.config, smtpUrl: 'smtp://127.0.0.1:9' });
    const sent = await mailer.send({ to: 'x@example.test', subject: 's', text: 't' }).then(
      () => null,
      (e: Error) => e,
    );
    expect(sent).to.be.instanceOf(MailError);
    expect(isDatabaseUnavailable(sent)).to.equal(false);
    const resets = createPasswordResetService(ctx, mailer);
    await resets.requestReset(acc.agent.email); // resolves, as for an unknown email: the mail is the job's
    await resets.requestReset('nobody@nowhere.test');
    // the job's try fails as a mail error (Agenda retries it), leaving no link behind, never a database outage
    const failed = await resets.sendReset(acc.agent.email).then(
      () => null,
      (e: Error) => e,
    );
    expect(failed).to.be.instanceOf(MailError);
    expect(await ctx.models.PasswordReset.count({ where: { user_id: acc.agent.id } })).to.equal(0);
    await runResetJobs();
  });

  it('answers a login form with a field sent twice (a list) with its page, and keeps serving', async () => {
    const acc = await makeAccount(getCtx());
    const res = await formLogin(web.url, acc.agent.email, 'a-wrong-password', [
      ['next', '/admin/a'],
      ['next', '/admin/b'],
    ]);
    expect(res.status).to.equal(401);
    expect(await res.text()).to.include('These credentials do not match our records.');
    const again = await formLogin(web.url, acc.agent.email, acc.agent.password, [
      ['email', 'x@example.test'],
      ['next', '/admin'],
    ]);
    expect(again.status).to.be.below(500);
    expect((await fetch(`${web.url}/health/live`)).status).to.equal(200);
  });

  it('treats LIKE wildcards in an email or an account name as letters when it checks they are taken', async () => {
    const ctx = getCtx();
    const sys = systemActor();
    const stamp = Date.now().toString(36);
    const first = await ctx.services.accounts.createAccount(sys, { name: `Shop_${stamp}` });
    const second = await ctx.services.accounts.createAccount(sys, { name: `ShopX${stamp}` });
    const user = { account_id: first.id, role: 'agent' as const, name: 'Wild Card', password: 'a-long-password-1' };
    await ctx.services.accounts.createUser(sys, { ...user, email: `axb${stamp}@test.local` });
    await ctx.services.accounts.createUser(sys, { ...user, email: `a_b${stamp}@test.local` });
    const taken = await ctx.services.accounts.createUser(sys, { ...user, email: `A_B${stamp}@test.local` }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(taken).to.match(/already been taken/);
    expect(second.id).to.be.a('number');
    const renamed = await ctx.services.accounts.updateAccount(sys, second.id, { name: `%${stamp}` }).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    expect(renamed).to.equal('ok');
  });

  it('follows next only to a path on this site', async () => {
    for (const bad of [
      '/\\evil.example',
      '//evil.example',
      '/\\/evil.example',
      'https://evil.example/',
      '/%5Cevil',
      'javascript:alert(1)',
      '/\tevil',
      '',
      undefined,
      ['/leads'],
    ]) {
      expect(safeNext(bad), String(bad)).to.equal(bad === '/%5Cevil' ? '/%5Cevil' : '/admin');
    }
    expect(safeNext('/leads?status=new#top')).to.equal('/leads?status=new#top');
    const acc = await makeAccount(getCtx());
    const res = await formLogin(web.url, acc.seller.email, acc.seller.password, { next: '/\\evil.example' });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/admin');
  });

  it('stores no session row for anonymous visits (login page, CSRF token, password reset), and one at login', async () => {
    const acc = await makeAccount(getCtx());
    const { Session } = getCtx().models;
    const before = await Session.count();
    const c = sessionClient(web.url);
    await c.fetch('/login', { headers: { accept: 'text/html' } });
    c.csrf = (await c.json('GET', '/csrf-token')).body.token;
    expect((await c.json('POST', '/reset-password', { email: 'nobody@nowhere.test' })).status).to.equal(200);
    expect((await c.json('POST', '/login', { email: acc.seller.email, password: 'wrong-password' })).status).to.equal(
      401,
    );
    for (let i = 0; i < 5; i++) await fetch(`${web.url}/login`);
    expect(await Session.count()).to.equal(before);
    // The anonymous token guards the login form: no token, A's token without A's identifier cookie, or A's token with
    // B's identifier are all refused, with the right password.
    const good = { email: acc.seller.email, password: acc.seller.password };
    const other = sessionClient(web.url);
    other.csrf = (await other.json('GET', '/csrf-token')).body.token;
    const tries = [
      { cookies: c.cookies, token: '' },
      { cookies: new Map<string, string>(), token: c.csrf },
      { cookies: other.cookies, token: c.csrf },
    ];
    for (const [i, t] of tries.entries()) {
      const res = await fetch(`${web.url}/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(t.token ? { 'x-csrf-token': t.token } : {}),
          ...(t.cookies.size ? { cookie: [...t.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        },
        body: JSON.stringify(good),
      });
      expect(res.status, `try ${i}`).to.equal(403);
    }
    expect(await Session.count()).to.equal(before);
    // ... and with its own cookie and token, the session starts at login.
    expect(
      (await c.json('POST', '/login', { email: acc.seller.email, password: acc.seller.password })).status,
    ).to.equal(200);
    expect(await Session.count()).to.equal(before + 1);
    c.csrf = (await c.json('GET', '/csrf-token')).body.token;
    expect((await c.json('POST', '/logout', {})).status).to.be.below(400);
  });
});
