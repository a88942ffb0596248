import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, panelApi } from '../session.js';

/** The panel's Blocklist resource (docs/admin-panel.md "Blocklist"): block with a reason, unblock, roles, words. */
const NATIONAL = '0612345678';

const phonesOf = (accountId: number) =>
  getCtx()
    .db.sequelize.query<{ phone: string; reason: string }>(
      'SELECT phone, reason FROM blocked_phones WHERE account_id = $1 ORDER BY id',
      { bind: [accountId], type: QueryTypes.SELECT },
    )
    .then((rows) => rows.map((r) => [r.phone, r.reason]));

describe('panel: Blocklist', () => {
  const web = useTestServer();

  it('When a seller blocks a phone in the panel and deletes the entry, Then it is stored with its reason, then gone', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);

    const made = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', {
      phone: NATIONAL,
      reason: 'Prank calls',
      account_id: 999_999,
    });

    expect(made.status).to.equal(200);
    expect(made.body.record.params).to.include({ phone: NATIONAL, phone_normalized: '+212612345678' });
    expect(await phonesOf(acc.id)).to.deep.equal([[NATIONAL, 'Prank calls']]);
    const id = made.body.record.params.id;
    const gone = await panelApi(c, web.url, 'POST', `blocked_phones/records/${id}/delete`);
    expect(gone.status).to.equal(200);
    expect(await phonesOf(acc.id)).to.deep.equal([]);
  });

  it('When the panel form is refused, Then the errors are under Phone and Reason in the user’s language and nothing is stored', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', { phone: NATIONAL, reason: 'First' });

    const again = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', {
      phone: '+212612345678',
      reason: 'x',
    });
    const unexplained = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', { phone: '0699999999' });
    const uncallable = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', {
      phone: '0600abc123',
      reason: 'x',
    });
    expect((await c.json('POST', '/settings/language', { language: 'fr' })).status).to.equal(200);
    const french = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', { phone: NATIONAL, reason: 'x' });

    expect(again.body.record.errors.phone.message).to.equal('Phone is already blocked');
    expect(Object.keys(unexplained.body.record.errors)).to.deep.equal(['reason']);
    expect(Object.keys(uncallable.body.record.errors)).to.deep.equal(['phone']);
    expect(uncallable.body.record.errors.phone.message).to.match(/^Phone is not a possible number in MA/);
    expect(french.body.record.errors.phone.message).to.equal('Téléphone est déjà bloqué');
    expect(await phonesOf(acc.id)).to.deep.equal([[NATIONAL, 'First']]);
  });

  it('When an agent opens the Blocklist, Then they list it but New and Unblock are refused', async () => {
    const acc = await makeAccount(getCtx());
    const entry = await getCtx().services.blocklist.block(acc.seller.actor, { phone: NATIONAL, reason: 'Seen' });
    const c = await login(web.url, acc.agent.email, acc.agent.password);

    const list = await panelApi(c, web.url, 'GET', 'blocked_phones/actions/list');
    const made = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', { phone: '0699999999', reason: 'x' });
    const gone = await panelApi(c, web.url, 'POST', `blocked_phones/records/${entry.id}/delete`);

    expect(list.body.records.map((r: { params: { phone: string } }) => r.params.phone)).to.deep.equal([NATIONAL]);
    for (const refused of [made, gone])
      expect(refused.status === 403 || refused.body?.record?.baseError?.type === 'ForbiddenError').to.equal(true);
    expect(await phonesOf(acc.id)).to.deep.equal([[NATIONAL, 'Seen']]);
  });

  it('When an admin blocks in the panel, Then the account must be chosen and the entry is that account’s', async () => {
    const acc = await makeAccount(getCtx());
    const admin = await makeAdmin(getCtx());
    const c = await login(web.url, admin.email, admin.password);

    const unchosen = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', { phone: NATIONAL, reason: 'x' });
    const chosen = await panelApi(c, web.url, 'POST', 'blocked_phones/actions/new', {
      phone: NATIONAL,
      reason: 'For the shop',
      account_id: acc.id,
    });

    expect(Object.keys(unchosen.body.record.errors)).to.deep.equal(['account_id']);
    expect(chosen.body.record.params).to.include({ account_id: acc.id, phone: NATIONAL });
    expect(await phonesOf(acc.id)).to.deep.equal([[NATIONAL, 'For the shop']]);
  });
});
