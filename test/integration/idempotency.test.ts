import { expect } from 'chai';
import crypto from 'node:crypto';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { ageKeys, countOf, item, keysOf } from '../idempotency-fixtures.js';

/** Idempotency-Key on POST /leads (issue 34, docs/api.md "Idempotent requests"). */
describe('Idempotency-Key on POST /leads', () => {
  const web = useTestServer();
  const newKey = () => crypto.randomUUID();

  async function client(acc?: TestAccount) {
    const a = acc ?? (await makeAccount(getCtx()));
    const call = restClient(web.url, await a.token());
    const post = (body: unknown, key?: string) =>
      call('POST', '/leads', body, key === undefined ? {} : { 'Idempotency-Key': key });
    return { acc: a, call, post };
  }

  it('When the same key and body are sent twice, Then one lead and the first answer again, marked replayed', async () => {
    const { acc, post } = await client();
    const body = { leads: [item(acc), item(acc)] };
    const key = newKey();

    const first = await post(body, key);
    const again = await post(body, key);

    expect(first.status).to.equal(201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(first.body);
    expect(again.body.references).to.have.length(2);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await countOf('leads', acc.id)).to.equal(2);
    expect(await keysOf(acc.id)).to.deep.equal([
      { endpoint: 'POST /leads', key, status_code: 201, response: first.body, completed: true },
    ]);
  });

  it('When the retry has the same body with its keys in another order and other spacing, Then it is replayed', async () => {
    const { acc, post, call } = await client();
    const one = item(acc);
    const key = newKey();
    const first = await post({ leads: [one] }, key);
    const reordered = Object.fromEntries(Object.entries(one).reverse());

    const again = await call('POST', '/leads', `{ "leads" : [ ${JSON.stringify(reordered)} ] }`, {
      'Idempotency-Key': key,
    });

    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(first.body);
    expect(await countOf('leads', acc.id)).to.equal(1);
  });

  it('When the same key comes with another body, Then 422 under Idempotency-Key and nothing is written', async () => {
    const { acc, post } = await client();
    const key = newKey();
    await post({ leads: [item(acc)] }, key);

    const other = await post({ leads: [item(acc), item(acc)] }, key);

    expect(other.status).to.equal(422);
    expect(other.body).to.deep.equal({
      message: 'This Idempotency-Key was already used with a different request body; send a new key for a new request.',
      errors: {
        'Idempotency-Key': [
          'This Idempotency-Key was already used with a different request body; send a new key for a new request.',
        ],
      },
    });
    expect(await countOf('leads', acc.id)).to.equal(1);
    expect(await keysOf(acc.id)).to.have.length(1);
  });

  it('When two requests with one key arrive at once, Then one lead and both get the same answer', async () => {
    const { acc, post } = await client();
    const body = { leads: Array.from({ length: 20 }, () => item(acc)) };
    const key = newKey();

    const answers = await Promise.all([post(body, key), post(body, key)]);

    expect(answers.map((a) => a.status)).to.deep.equal([201, 201]);
    expect(answers[1].body).to.deep.equal(answers[0].body);
    expect(answers.map((a) => a.headers.get('idempotent-replayed')).sort()).to.deep.equal(['true', null].sort());
    expect(await countOf('leads', acc.id)).to.equal(20);
  });

  it('When five requests with one key arrive at once, Then 20 leads once, five equal answers, four replayed', async () => {
    const { acc, post } = await client();
    const body = { leads: Array.from({ length: 20 }, () => item(acc)) };
    const key = newKey();

    const answers = await Promise.all(Array.from({ length: 5 }, () => post(body, key)));

    expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201, 201, 201]);
    for (const a of answers) expect(a.body).to.deep.equal(answers[0].body);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(4);
    expect(await countOf('leads', acc.id)).to.equal(20);
    expect(await keysOf(acc.id)).to.have.length(1);
  });

  it('When another account sends the same key, Then its request is its own: its own lead, no replay, no refusal', async () => {
    const a = await client();
    const b = await client();
    const key = newKey();
    const first = await a.post({ leads: [item(a.acc)] }, key);

    const theirs = await b.post({ leads: [item(b.acc), item(b.acc)] }, key);

    expect(theirs.status).to.equal(201);
    expect(theirs.headers.get('idempotent-replayed')).to.equal(null);
    expect(theirs.body.references).to.have.length(2);
    expect(theirs.body.references).not.to.include(first.body.references[0]);
    expect(await countOf('leads', a.acc.id)).to.equal(1);
    expect(await countOf('leads', b.acc.id)).to.equal(2);
    const again = await a.post({ leads: [item(a.acc)] }, key);
    expect(again.status, 'A still owns its key: another body is refused').to.equal(422);
  });

  it('When another token of the same account repeats the key, Then it gets the first answer (keys are the account’s)', async () => {
    const a = await client();
    const other = await client(a.acc);
    const body = { leads: [item(a.acc)] };
    const key = newKey();
    const first = await a.post(body, key);

    const again = await other.post(body, key);

    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await countOf('leads', a.acc.id)).to.equal(1);
  });

  it('When the first request is refused (422 inactive sku), Then no key is kept and the corrected retry with it writes', async () => {
    const { acc, post } = await client();
    const lead = item(acc);
    const key = newKey();

    const refused = await post(
      { leads: [{ ...lead, products: [{ sku: acc.skus.inactive, quantity: 1, price: 50 }] }] },
      key,
    );
    expect(refused.status).to.equal(422);
    expect(refused.body.errors).to.have.property('leads.0.products.0.sku');
    expect(await keysOf(acc.id)).to.deep.equal([]);
    const retried = await post({ leads: [lead] }, key);

    expect(retried.status).to.equal(201);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
    expect(await countOf('leads', acc.id)).to.equal(1);
    expect((await post({ leads: [lead] }, key)).body).to.deep.equal(retried.body);
  });

  it('When no key is sent, Then every request writes, as before, and no key is kept', async () => {
    const { acc, post } = await client();
    const body = { leads: [item(acc)] };

    const answers = [await post(body), await post(body)];

    expect(answers.map((a) => a.status)).to.deep.equal([201, 201]);
    expect(answers[1].body.references).not.to.deep.equal(answers[0].body.references);
    expect(answers[1].headers.get('idempotent-replayed')).to.equal(null);
    expect(await countOf('leads', acc.id)).to.equal(2);
    expect(await keysOf(acc.id)).to.deep.equal([]);
  });

  it('When a key is more than 24 hours old, Then the same key and body write anew', async () => {
    const { acc, post } = await client();
    const body = { leads: [item(acc)] };
    const key = newKey();
    const first = await post(body, key);
    await ageKeys(acc.id, '24 hours 1 second');

    const later = await post(body, key);

    expect(later.status).to.equal(201);
    expect(later.headers.get('idempotent-replayed')).to.equal(null);
    expect(later.body.references).not.to.deep.equal(first.body.references);
    expect(await countOf('leads', acc.id)).to.equal(2);
    const rows = await keysOf(acc.id);
    expect(rows.map((r) => r.response)).to.deep.equal([later.body]);
    expect((await post(body, key)).body, 'the renewed key replays the new answer').to.deep.equal(later.body);
  });

  it('When a key is 23 hours old, Then it still answers the first answer', async () => {
    const { acc, post } = await client();
    const body = { leads: [item(acc)] };
    const key = newKey();
    const first = await post(body, key);
    await ageKeys(acc.id, '23 hours');

    const again = await post(body, key);

    expect(again.body).to.deep.equal(first.body);
    expect(await countOf('leads', acc.id)).to.equal(1);
  });

  it('When 1,000 leads are sent with a key, Then 201 with 1,000 references, and the retry replays them all', async function () {
    this.timeout(120_000);
    const { acc, post } = await client();
    const body = { leads: Array.from({ length: 1000 }, () => item(acc)) };
    const key = newKey();

    const first = await post(body, key);
    const again = await post(body, key);

    expect(first.status).to.equal(201);
    expect(first.body.references).to.have.length(1000);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await countOf('leads', acc.id)).to.equal(1000);
  });
});
