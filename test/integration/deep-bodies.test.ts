import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { intakeReason } from '../../admin/resources/intake-reasons.js';
import { pageWords } from '../../admin/panel-form-errors.js';
import { INPUT_DEPTH } from '../../src/validation.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeCarrier, type TestAccount } from '../factories.js';
import { postCallback, useTestServer } from '../helpers.js';
import { intakeOf, leadsOf, makeFormSource, postForm } from '../form-sources.js';
import { restClient } from '../rest-client.js';
import { deliver, makeStoreSource } from '../store-webhooks.js';

/** 5,000 levels of `{"a":…}`: JSON.parse reads it, a recursive walk over it (JSON.stringify) overflows the stack. */
const DEEP = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
/** The dotted path at which the input rule refuses it. */
const AT = Array(INPUT_DEPTH).fill('a').join('.');
const NESTED = `The ${AT} field must not nest more than ${INPUT_DEPTH} levels deep.`;

const countOf = async (sql: string, accountId: number) =>
  Number(
    (
      await getCtx().db.sequelize.query<{ n: string }>(sql, {
        bind: [accountId],
        type: QueryTypes.SELECT,
      })
    )[0].n,
  );

/**
 * Issue 40, finding 7: a body nested 5,000 levels deep to a public route is a documented 4xx, never a 500. The form
 * answered 500 and logged nothing: its refusal (a 422) was logged with the fields' JSON (loggedFields), and
 * JSON.stringify overflowed the stack. The one input rule (src/validation.ts, INPUT_DEPTH) now refuses such nesting
 * as a 422 naming the field on every REST, dashboard and form body; the intake log keeps a bounded copy.
 */
describe('Deep bodies on public routes (issue 40, finding 7): a 4xx, never a 500', () => {
  const app = useTestServer();
  let acc: TestAccount;
  let carrierId: number;
  before(async () => {
    acc = await makeAccount(getCtx());
    carrierId = (await makeCarrier(getCtx(), acc.id)).id;
  });

  it('When a script posts a 5,000-deep JSON form, Then a 422 naming the field, no lead, and the refusal logged', async () => {
    const s = await makeFormSource(acc.id, { products: [{ sku: acc.skus.active[0], quantity: 1 }] });
    const wrapped = `{"full_name":"Amina Benali","phone":"0612345678","a":${DEEP.slice(5)}`;
    for (const body of [DEEP, wrapped]) {
      const res = await postForm(app.url, s.public_key, body, { json: true });
      expect(res.status, body.slice(0, 40)).to.equal(422);
      expect(await res.json()).to.deep.equal({ message: NESTED, errors: { [AT]: [NESTED] } });
    }
    expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
    const log = await intakeOf(getCtx(), s.id);
    expect(log.map((l) => [l.outcome, l.reason])).to.deep.equal([
      ['refused', NESTED],
      ['refused', NESTED],
    ]);
    // a short copy, not the payload whole: the field's JSON cut in depth, then to 255 characters
    expect(log[1].payload).to.include({ full_name: 'Amina Benali', phone: '0612345678' });
    expect(log[1].payload!.a)
      .to.have.length.at.most(255)
      .and.match(/^\{"a":\{"a":/);
    // the panel words the reason like the other field rules
    expect(intakeReason(NESTED, pageWords('fr'))).to.equal(`${AT} ne doit pas avoir plus de 32 niveaux d’imbrication`);
  });

  it('When a browser posts deep brackets (a[a][a]…=1), Then a 422 page, no lead, and the refusal logged', async () => {
    const s = await makeFormSource(acc.id);
    const res = await postForm(app.url, s.public_key, `full_name=Amina&a${'[a]'.repeat(5000)}=1`, {
      headers: { accept: 'text/html' },
    });
    expect(res.status).to.equal(422);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
    expect((await intakeOf(getCtx(), s.id)).map((l) => l.outcome)).to.deep.equal(['refused']);
  });

  it('When a shop or a carrier address gets a 5,000-deep body unsigned, Then a 401, nothing created', async () => {
    for (const kind of ['shopify', 'woocommerce'] as const) {
      const src = await makeStoreSource(acc.id, kind);
      const res = await deliver(app.url, src, DEEP, { secret: 'not-the-secret' });
      expect(res.status, kind).to.equal(401);
      expect(await res.json()).to.deep.equal({ message: 'Invalid signature.' });
    }
    const res = await postCallback(app.url, 'fast', carrierId, 'not-the-secret', DEEP);
    expect(res.status).to.equal(401);
    expect(await res.json()).to.deep.equal({ message: 'Invalid signature.' });
    expect(await countOf('SELECT count(*) AS n FROM leads WHERE account_id = $1', acc.id)).to.equal(0);
  });

  it('When the body is deep but signed, Then the carrier gets a 422 naming the field and a shop its logged 200', async () => {
    const res = await postCallback(app.url, 'fast', carrierId, 'secret-0123456789', DEEP);
    expect(res.status).to.equal(422);
    expect((await res.json()).errors).to.have.property(AT);
    // a signed delivery is answered 200 and logged refused (docs/lead-sources.md, "What a shop is answered")
    const src = await makeStoreSource(acc.id, 'shopify');
    const shop = await deliver(app.url, src, DEEP);
    expect(shop.status).to.equal(200);
    expect(await shop.json()).to.include({ outcome: 'refused' });
    expect(await countOf('SELECT count(*) AS n FROM leads WHERE account_id = $1', acc.id)).to.equal(0);
  });

  it('When a REST client sends it with an Idempotency-Key, Then a 422 naming the field (the hash no longer overflows)', async () => {
    const rest = restClient(app.url, await acc.token());
    const res = await rest('POST', '/leads', `{"leads":[${DEEP}]}`, { 'idempotency-key': 'deep-1' });
    expect(res.status).to.equal(422);
    expect(res.body.errors).to.have.property(`leads.0.${AT.split('.').slice(2).join('.')}`);
    expect(await countOf('SELECT count(*) AS n FROM leads WHERE account_id = $1', acc.id)).to.equal(0);
  });
});
