import { expect } from 'chai';
import { makeAccount, uid } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { mailsTo } from '../reset-jobs.js';
import { login, sessionClient, type SessionClient } from '../session.js';

/** The token of the last invitation mailed to `email`. */
function invitationToken(email: string): string {
  const mail = mailsTo(email).pop();
  if (!mail) throw new Error(`no mail to ${email}`);
  return /\/invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
}

describe('login invitations', () => {
  const web = useTestServer();

  /** The invitation page as a browser gets it, then its form posted with `password` typed twice (not followed). */
  async function accept(token: string, password: string, confirmation = password) {
    const c = sessionClient(web.url);
    const page = await c.fetch(`/invitation?token=${token}`, { headers: { accept: 'text/html' } });
    const html = await page.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? (await c.json('GET', '/csrf-token')).body.token;
    const res = await c.fetch('/invitation', {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, token, password, password_confirmation: confirmation }).toString(),
    });
    return {
      page: { status: page.status, html },
      status: res.status,
      location: res.headers.get('location'),
      html: await res.text(),
    };
  }

  const invite = (seller: SessionClient, email: string, extra: Record<string, string> = {}) =>
    seller
      .fetch('/admin/api/resources/users/actions/new', {
        method: 'POST',
        headers: { origin: web.url },
        json: { email, name: 'Invited Colleague', role: 'agent', ...extra },
      })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  const canSignIn = (email: string, password: string) =>
    login(web.url, email, password).then(
      () => true,
      () => false,
    );

  it('When the owner of a fresh address accepts the invitation, Then the login exists in the account with its role and the chosen password, and the link is spent', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const fresh = `invited-${uid()}@test.local`;
    // a password typed by the seller is ignored: the invitee chooses it
    expect((await invite(seller, fresh, { password: 'seller-chose-1' })).status).to.equal(200);
    const token = invitationToken(fresh);
    const res = await accept(token, 'invitee-chose-1');
    expect(res.page.status).to.equal(200);
    expect(res.page.html).to.include(mine.name).and.include(fresh);
    expect([res.status, res.location]).to.deep.equal([303, '/login']);
    const user = await ctx.models.User.findOne({ where: { email: fresh } });
    expect([user!.account_id, user!.role, user!.name]).to.deep.equal([mine.id, 'agent', 'Invited Colleague']);
    expect(await canSignIn(fresh, 'invitee-chose-1')).to.equal(true);
    expect(await canSignIn(fresh, 'seller-chose-1')).to.equal(false);
    // listed under the seller's Users now; the used link is 410
    const list = await seller.json('GET', '/admin/api/resources/users/actions/list');
    expect(JSON.stringify(list.body.records)).to.include(fresh);
    const again = await accept(token, 'another-pass-1');
    expect([again.page.status, again.status]).to.deep.equal([410, 410]);
    expect(await canSignIn(fresh, 'invitee-chose-1')).to.equal(true);
  });

  it('When the owner of another tenant’s login accepts, Then it is told the address has a login, nothing changes and the link is void', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    await invite(seller, other.agent.email);
    const token = invitationToken(other.agent.email);
    const res = await accept(token, 'hijack-pass-1');
    expect(res.status).to.equal(409);
    expect(res.html).to.include('This address already has a LeadFlow login: sign in with it');
    const holder = await ctx.models.User.findOne({ where: { email: other.agent.email } });
    expect([holder!.account_id, holder!.name, holder!.role]).to.deep.equal([other.id, other.agent.name, 'agent']);
    expect(await canSignIn(other.agent.email, other.agent.password)).to.equal(true);
    expect(await canSignIn(other.agent.email, 'hijack-pass-1')).to.equal(false);
    expect(await ctx.models.User.count({ where: { account_id: mine.id } })).to.equal(2);
    expect((await accept(token, 'hijack-pass-1')).status).to.equal(410);
    // the voided invitation still counts as pending to the seller: inviting again answers as for any pending one
    expect(JSON.stringify((await invite(seller, other.agent.email)).body)).to.include(
      'An invitation to this email is already pending.',
    );
  });

  it('When the seller who sent an invitation is deactivated or demoted before it is accepted, Then the link is void and no login is made', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const [one, two] = [`gone-${uid()}@test.local`, `demoted-${uid()}@test.local`];
    await invite(seller, one, { role: 'seller' });
    await invite(seller, two, { role: 'seller' });
    await ctx.models.User.update({ active: false }, { where: { id: mine.seller.id } });
    expect((await accept(invitationToken(one), 'fine-password-1')).status).to.equal(410);
    await ctx.models.User.update({ active: true, role: 'agent' }, { where: { id: mine.seller.id } });
    expect((await accept(invitationToken(two), 'fine-password-1')).status).to.equal(410);
    expect(await ctx.models.User.count({ where: { email: [one, two] } })).to.equal(0);
  });

  it('When an account has 20 invitations pending, Then the next is refused in words, whatever the address', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    for (let i = 0; i < 20; i++) expect((await invite(seller, `cap-${i}-${uid()}@test.local`)).status).to.equal(200);
    for (const address of [`cap-more-${uid()}@test.local`, mine.seller.email.replace('@', '+x@')]) {
      const refused = await invite(seller, address);
      expect(JSON.stringify(refused.body), address).to.include('invitations pending, the most allowed');
    }
    expect(await ctx.models.LoginInvitation.count({ where: { account_id: mine.id } })).to.equal(20);
  });

  it('When an invitation has expired, or its password breaks the rules, Then the link answers 410 or the form its error', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const [late, short] = [`late-${uid()}@test.local`, `short-${uid()}@test.local`];
    await invite(seller, late);
    await invite(seller, short);
    await ctx.models.LoginInvitation.update({ expires_at: new Date(Date.now() - 1000) }, { where: { email: late } });
    const expired = await accept(invitationToken(late), 'fine-password-1');
    expect([expired.page.status, expired.status]).to.deep.equal([410, 410]);
    expect((await fetch(`${web.url}/invitation?token=unknown`)).status).to.equal(410);
    const mismatch = await accept(invitationToken(short), 'fine-password-1', 'other-password-1');
    expect(mismatch.status).to.equal(422);
    expect(mismatch.html).to.include('The password confirmation does not match.');
    expect((await accept(invitationToken(short), 'short')).status).to.equal(422);
    expect(await ctx.models.User.count({ where: { email: [late, short] } })).to.equal(0);
    // a pending invitation of the seller's own account is refused by name, like one of its logins
    expect(JSON.stringify((await invite(seller, short)).body)).to.include(
      'An invitation to this email is already pending.',
    );
  });
});

describe('login invitations: the per-IP budget', () => {
  const web = useTestServer(); // a server of its own: the budget is per app and IP

  it('When one client posts more acceptances than RESET_REQUESTS_PER_IP, Then the rest answer 429 in words and make no login', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const address = `throttled-${uid()}@test.local`;
    const invited = await seller.fetch('/admin/api/resources/users/actions/new', {
      method: 'POST',
      headers: { origin: web.url },
      json: { email: address, name: 'Invited Colleague', role: 'agent' },
    });
    expect(invited.status).to.equal(200);
    const c = sessionClient(web.url);
    const csrf = (await c.json('GET', '/csrf-token')).body.token;
    const post = (token: string, password: string, confirmation: string) =>
      c.fetch('/invitation', {
        method: 'POST',
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, token, password, password_confirmation: confirmation }).toString(),
      });
    const statuses: number[] = [];
    for (let i = 0; i <= ctx.config.resetRequestsPerIp; i++) {
      const res = await post('wrong-token', 'x', 'y');
      statuses.push(res.status);
      if (res.status === 429) expect(await res.text()).to.include('Too many attempts. Please try again later.');
    }
    expect(statuses.at(-1)).to.equal(429);
    expect(statuses.slice(0, -1)).to.not.include(429);
    // the budget is spent: even the right link waits, and no login is made meanwhile
    const right = await post(invitationToken(address), 'fine-password-1', 'fine-password-1');
    expect(right.status).to.equal(429);
    expect(await ctx.models.User.count({ where: { email: address } })).to.equal(0);
  });
});
