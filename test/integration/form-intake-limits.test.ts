import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { expectReasonsWorded, intakeOf, leadsOf, makeFormSource, postForm } from '../form-sources.js';

const visitor = { full_name: 'Amina Benali', phone: '0612345678' };

describe('Form endpoint: budgets and hostile input', () => {
  let app: Awaited<ReturnType<typeof startTestServer>>;
  let acc: TestAccount;
  before(async () => {
    const ctx = getCtx();
    app = await startTestServer({
      ...ctx,
      config: { ...ctx.config, trustProxy: true, forms: { ratePerIp: 3, ratePerSource: 5 } },
    });
    acc = await makeAccount(ctx);
  });
  after(() => app?.close());
  const source = () => makeFormSource(acc.id, { products: [{ sku: acc.skus.active[0], quantity: 1 }] });

  it('When one address sends more than its budget, Then 429 with Retry-After, logged rate_limited', async () => {
    const s = await source();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await postForm(app.url, s.public_key, { ...visitor, phone: `061111111${i}` })).status);
    expect(statuses).to.deep.equal([201, 201, 201, 429]);
    const last = await postForm(app.url, s.public_key, visitor);
    expect(Number(last.headers.get('retry-after'))).to.be.within(1, 60);
    expect((await intakeOf(getCtx(), s.id)).map((l) => l.outcome)).to.deep.equal([
      'created',
      'created',
      'created',
      'rate_limited',
      'rate_limited',
    ]);
  });

  it('When many addresses together exceed the source budget, Then the source refuses and other sources still take forms', async () => {
    const s = await source();
    const statuses: number[] = [];
    // six visitors behind a trusted proxy, one submission each: only the source's budget can refuse
    for (let i = 0; i < 6; i++) {
      const headers = { 'x-forwarded-for': `203.0.113.${i + 1}` };
      statuses.push(
        (await postForm(app.url, s.public_key, { ...visitor, phone: `06222222${i}0` }, { headers })).status,
      );
    }
    expect(statuses).to.deep.equal([201, 201, 201, 201, 201, 429]);
    const [last] = (await intakeOf(getCtx(), s.id)).slice(-1);
    expect(last).to.include({ outcome: 'rate_limited', client_ip: '203.0.113.6' });
    expect(last.reason).to.match(/This form receives too many submissions/);
    expect((await postForm(app.url, (await source()).public_key, visitor)).status).to.equal(201);
  });

  for (const [what, body, json] of [
    ['a NUL byte', { ...visitor, full_name: 'Amina\u0000Benali' }, true],
    ['arrays where texts are expected', 'phone=0612345678&phone=0699999999&full_name=Amina+Benali', false],
    ['a field over 64 KB', { ...visitor, note: 'x'.repeat(70_000) }, false],
    ['malformed JSON', '{"phone": ', true],
    ['a JSON array', '[1,2,3]', true],
    ['an object as the phone', { ...visitor, phone: { $gt: '' } }, true],
    ['a lone surrogate', { ...visitor, full_name: 'Amina \ud800' }, true],
  ] as const)
    it(`When the body holds ${what}, Then a 4xx refusal, no lead, and the refusal logged (never a 500)`, async () => {
      const s = await source();
      const res = await postForm(app.url, s.public_key, body as never, { json });
      expect(res.status).to.be.within(400, 422);
      expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
      expect((await intakeOf(getCtx(), s.id))[0].outcome).to.equal('refused');
    });

  it('When the body is text/plain, Then it reads as no fields: 422 naming phone and full_name', async () => {
    const s = await source();
    const res = await fetch(`${app.url}/api/web/1.0/intake/forms/${s.public_key}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: 'phone=0612345678',
    });
    expect(res.status).to.equal(422);
    expect((await res.json()).errors).to.have.keys(['phone', 'full_name']);
  });

  it('When the panel shows the reasons these refusals logged, Then each reads in French and in Arabic', async () => {
    await expectReasonsWorded(getCtx(), [acc.id], 3);
  });
});
