import { expect } from 'chai';
import { makeAccount, makeAdmin, uid } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { mailsTo } from '../reset-jobs.js';
import { login, type SessionClient } from '../session.js';

/** The parts of a panel answer a seller sees, with the email made generic so two answers can be compared. */
function shapeOf(body: Record<string, unknown>, email: string) {
  const text = JSON.stringify({ notice: body.notice, redirectUrl: body.redirectUrl, record: body.record });
  return JSON.parse(text.split(email).join('<email>'));
}

describe('no cross-tenant oracles', () => {
  const web = useTestServer();

  const panel = (c: SessionClient, path: string, json: Record<string, unknown>) =>
    c
      .fetch(`/admin/api/resources/${path}`, { method: 'POST', headers: { origin: web.url }, json })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('When a seller adds a login whose email belongs to another tenant, Then the answer, the mail and the Users list are those a fresh email gets', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const login_ = (email: string) => ({ email, name: 'New Colleague', role: 'agent', password: 'colleague-pass-1' });
    const usersList = async () =>
      JSON.stringify((await seller.json('GET', '/admin/api/resources/users/actions/list')).body.records);

    const fresh = `fresh-${uid()}@test.local`;
    const before = await usersList();
    const created = await panel(seller, 'users/actions/new', login_(fresh));
    const afterFresh = await usersList();
    const taken = await panel(seller, 'users/actions/new', login_(other.agent.email.toUpperCase()));
    expect(created.status).to.equal(taken.status);
    expect(shapeOf(taken.body, other.agent.email)).to.deep.equal(shapeOf(created.body, fresh));
    expect((created.body.notice as { message: string }).message).to.equal(
      `An invitation was mailed to ${fresh}. The login is listed under Users once its owner accepts it.`,
    );
    // no user row either way: the Users list is the same before and after both, and the seller cannot sign in
    expect(await usersList())
      .to.equal(before)
      .and.equal(afterFresh);
    const { User, LoginInvitation } = ctx.models;
    expect(await User.count({ where: { email: fresh } })).to.equal(0);
    expect(await User.count({ where: { account_id: mine.id } })).to.equal(2);
    const holder = await User.findOne({ where: { email: other.agent.email } });
    expect([holder!.account_id, holder!.name]).to.deep.equal([other.id, other.agent.name]);
    expect(await LoginInvitation.count({ where: { account_id: mine.id } })).to.equal(2);
    for (const email of [fresh, other.agent.email])
      expect(
        await login(web.url, email, 'colleague-pass-1').then(
          () => email,
          () => 'refused',
        ),
      ).to.equal('refused');
    // one mail to each address, the same subject and text but for the link; it names the seller's account only
    const [toFresh, toTaken] = [mailsTo(fresh), mailsTo(other.agent.email)];
    expect([toFresh.length, toTaken.length]).to.deep.equal([1, 1]);
    const shape = (m: { subject: string; text: string }) => ({
      subject: m.subject,
      text: m.text.replace(/token=\S+/, ''),
    });
    expect(shape(toTaken[0])).to.deep.equal(shape(toFresh[0]));
    expect(toTaken[0].subject).to.include(mine.name);
    expect(toTaken[0].text).to.include('/invitation?token=').and.not.include(other.name);
  });

  it('When a seller changes a login’s email, Then a free address and another tenant’s login get the same answer', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const edit = (email: string) =>
      panel(seller, `users/records/${mine.agent.id}/edit`, { name: mine.agent.name, email, role: 'agent' });
    const fresh = `free-${uid()}@test.local`;
    const free = await edit(fresh);
    const taken = await edit(other.seller.email);
    expect(taken.status).to.equal(free.status);
    expect(shapeOf(taken.body, other.seller.email)).to.deep.equal(shapeOf(free.body, fresh));
    expect(JSON.stringify(taken.body)).to.include("Only an admin can change a login's email");
    expect((await ctx.models.User.findByPk(mine.agent.id))!.email).to.equal(mine.agent.email);
    // the same email sent back unchanged (the edit form does) saves the other fields
    const renamed = await panel(seller, `users/records/${mine.agent.id}/edit`, {
      name: 'Renamed Agent',
      email: mine.agent.email,
      role: 'agent',
    });
    expect((renamed.body.notice as { type: string }).type).to.equal('success');
  });

  it('When a seller adds a login of its own account again, Then it is refused by name (the seller lists it anyway)', async () => {
    const mine = await makeAccount(getCtx());
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    const again = await panel(seller, 'users/actions/new', {
      email: mine.agent.email,
      name: 'Twice',
      role: 'agent',
      password: 'colleague-pass-1',
    });
    expect(JSON.stringify(again.body)).to.include('The email has already been taken.');
  });

  it('When an admin adds a login whose email is taken, Then the admin sees the real reason', async () => {
    const ctx = getCtx();
    const admin = await makeAdmin(ctx);
    const other = await makeAccount(ctx);
    const c = await login(web.url, admin.email, admin.password);
    const res = await panel(c, 'users/actions/new', {
      email: other.seller.email,
      name: 'Copy',
      role: 'agent',
      password: 'colleague-pass-1',
      account_id: String(other.id),
    });
    // the form's words (admin/panel-form-errors.ts): the field's label, messages.validation.taken
    expect(JSON.stringify(res.body)).to.include('is already taken');
  });

  it('When a seller renames its account to another tenant’s name, Then the rename is saved like any other', async () => {
    const ctx = getCtx();
    const mine = await makeAccount(ctx);
    const other = await makeAccount(ctx);
    const seller = await login(web.url, mine.seller.email, mine.seller.password);
    for (const name of [other.name, other.name.toUpperCase(), `Unused ${mine.id}`]) {
      const res = await panel(seller, `accounts/records/${mine.id}/edit`, { name });
      expect((res.body.notice as { type: string }).type, name).to.equal('success');
      expect((await ctx.models.Account.findByPk(mine.id))!.name).to.equal(name);
    }
    expect((await ctx.models.Account.findByPk(other.id))!.name).to.equal(other.name);
    // the back office, which sees every account, is still stopped from giving two accounts one name
    const admin = await makeAdmin(ctx);
    const refused = await ctx.services.accounts.createAccount(admin.actor, { name: other.name }).then(
      () => 'created',
      (e: Error) => e.message,
    );
    expect(refused).to.match(/already been taken/);
  });
});
