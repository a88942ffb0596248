import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { captureSql, useTestServer } from '../helpers.js';
import { intakeOf, leadsOf, makeFormSource, postForm } from '../form-sources.js';

const PAGE = 'https://shop.example';

describe('Form endpoint: submissions become leads, each logged', () => {
  const app = useTestServer();
  let acc: TestAccount;
  before(async () => {
    acc = await makeAccount(getCtx());
  });
  const source = (thankYou: string | null = null) =>
    makeFormSource(acc.id, { origins: [PAGE], products: [{ sku: acc.skus.active[0], quantity: 1 }], thankYou });
  const visitor = { full_name: 'Amina Benali', phone: '0612345678', city: 'Casablanca' };

  it('When a page posts the urlencoded form, Then one lead arrives with its source, utm and extra fields', async () => {
    const s = await source();
    const fields = { ...visitor, utm_source: 'facebook', utm_campaign: 'summer', color: 'red', website: '' };
    const res = await postForm(app.url, s.public_key, fields, { headers: { origin: PAGE } });
    expect(res.status).to.equal(201);
    const body = await res.json();
    expect(body.message).to.equal('Lead created.');
    expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
    const [lead, ...more] = await leadsOf(getCtx(), s.id);
    expect(more).to.have.length(0);
    expect(lead).to.include({
      reference: body.reference,
      account_id: acc.id,
      status: 'new',
      full_name: 'Amina Benali',
    });
    expect(lead.utm).to.deep.equal({ utm_source: 'facebook', utm_campaign: 'summer' });
    // the UTM fields in the data too, where the KPI page's source breakdown reads utm_source (as for REST leads)
    expect(lead.data).to.deep.equal([
      { key: 'color', value: 'red' },
      { key: 'utm_source', value: 'facebook' },
      { key: 'utm_campaign', value: 'summer' },
    ]);
    await getCtx().services.kpi.fold();
    const report = await getCtx().services.kpi.kpi(acc.seller.actor, { by: 'source' });
    expect(report.breakdown.find((b) => b.key === 'facebook')?.leads).to.equal(1);
    expect(lead.skus).to.deep.equal([acc.skus.active[0]]);
    const [log] = await intakeOf(getCtx(), s.id);
    expect(log).to.include({ outcome: 'created', lead_reference: body.reference, origin: PAGE });
    expect(log.payload).to.include({ phone: '0612345678', color: 'red' });
  });

  it('When a submission is priced from the catalogue, Then the catalogue is read once, not again by the lead rules', async () => {
    const s = await source();
    const { formIntake } = getCtx().services;
    const found = await formIntake.source(s.public_key);
    const fields = { ...visitor, phone: '0611111199' };
    const submission = { fields, unreadable: null, origin: PAGE, clientIp: '203.0.113.9' };
    const { result, sent } = await captureSql(getCtx().db.sequelize, () => formIntake.submit(found, submission));
    expect(result.outcome).to.equal('created');
    expect(sent.filter((q) => /FROM products\s+WHERE account_id/.test(q.sql))).to.have.length(1);
  });

  it('When a script posts JSON with a sku and quantity, Then the lead has that product, not the default', async () => {
    const s = await source();
    const fields = { ...visitor, phone: '0611111111', sku: acc.skus.active[1], quantity: '2' };
    const res = await postForm(app.url, s.public_key, fields, { json: true });
    expect(res.status).to.equal(201);
    const [lead] = await leadsOf(getCtx(), s.id);
    expect(lead.skus).to.deep.equal([acc.skus.active[1]]);
  });

  it('When the phone already belongs to a recent lead, Then the lead is a duplicate and logged so', async () => {
    const s = await source();
    const phone = '0622334455';
    await postForm(app.url, s.public_key, { ...visitor, phone });
    const res = await postForm(app.url, s.public_key, { ...visitor, phone });
    expect(res.status).to.equal(201);
    expect((await leadsOf(getCtx(), s.id)).map((l) => l.status)).to.deep.equal(['new', 'duplicate']);
    expect((await intakeOf(getCtx(), s.id)).map((l) => l.outcome)).to.deep.equal(['created', 'duplicate']);
  });

  it('When the phone cannot be called, Then the lead is created wrong (the spec accepts it) and logged created', async () => {
    const s = await source();
    const res = await postForm(app.url, s.public_key, { ...visitor, phone: 'call me 123' });
    expect(res.status).to.equal(201);
    expect((await leadsOf(getCtx(), s.id))[0].status).to.equal('wrong');
    expect((await intakeOf(getCtx(), s.id))[0].outcome).to.equal('created');
  });

  it('When fields break the rules, Then 422 in the Laravel shape under the form names, nothing created, logged refused', async () => {
    const s = await source();
    const res = await postForm(app.url, s.public_key, { full_name: 'Al', phone: '', city: 'Casablanca' });
    expect(res.status).to.equal(422);
    const body = await res.json();
    expect(body.errors).to.have.keys(['phone', 'full_name']);
    expect(body.errors.phone).to.deep.equal(['The phone field is required.']);
    expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
    const [log] = await intakeOf(getCtx(), s.id);
    expect(log.outcome).to.equal('refused');
    expect(log.reason).to.equal(Object.values(body.errors as Record<string, string[]>).flat()[0]);
  });

  it('When the honeypot is filled, Then 422, no lead, logged refused with the honeypot reason', async () => {
    const s = await source();
    const res = await postForm(app.url, s.public_key, { ...visitor, website: 'http://spam.example' });
    expect(res.status).to.equal(422);
    expect((await res.json()).errors).to.have.keys(['website']);
    expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
    expect((await intakeOf(getCtx(), s.id))[0]).to.include({
      outcome: 'refused',
      reason: 'The website field must be empty.',
    });
  });

  it('When a script sends the honeypot as JSON null, false or blank, Then it counts as empty and the lead is created; true is a bot', async () => {
    for (const [i, website] of [null, false, '  '].entries()) {
      const s = await source();
      const res = await postForm(
        app.url,
        s.public_key,
        { ...visitor, phone: `06111122${30 + i}`, website },
        { json: true },
      );
      expect(res.status, `website: ${JSON.stringify(website)}`).to.equal(201);
      expect(await leadsOf(getCtx(), s.id)).to.have.length(1);
    }
    const s = await source();
    const res = await postForm(
      app.url,
      s.public_key,
      { ...visitor, phone: '0611112240', website: true },
      { json: true },
    );
    expect(res.status).to.equal(422);
    expect((await res.json()).errors).to.have.keys(['website']);
  });

  it('When a stored thank-you address carries a user name and password, Then the browser is sent to the form’s own page, not there', async () => {
    const s = await source('https://user:pass@shop.example/thanks');
    const res = await postForm(
      app.url,
      s.public_key,
      { ...visitor, phone: '0611112250' },
      { headers: { origin: PAGE, accept: 'text/html' } },
    );
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.not.include('shop.example');
    const plain = await source('https://shop.example/thanks');
    const sent = await postForm(
      app.url,
      plain.public_key,
      { ...visitor, phone: '0611112251' },
      { headers: { origin: PAGE, accept: 'text/html' } },
    );
    expect(sent.headers.get('location')).to.equal('https://shop.example/thanks');
  });

  it('When a page of another origin posts, Then 403 without CORS headers, no lead, logged refused', async () => {
    const s = await source();
    const res = await postForm(app.url, s.public_key, visitor, { headers: { origin: 'https://evil.example' } });
    expect(res.status).to.equal(403);
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
    expect((await intakeOf(getCtx(), s.id))[0]).to.include({ outcome: 'refused', origin: 'https://evil.example' });
  });

  it('When there is no Origin but a Referer of another site, Then the Referer decides: refused', async () => {
    const s = await source();
    const res = await postForm(app.url, s.public_key, visitor, { headers: { referer: 'https://evil.example/p?q=1' } });
    expect(res.status).to.equal(403);
  });

  it('When a source lists no origins, Then a page post is refused and a server post (no Origin) accepted', async () => {
    const s = await makeFormSource(acc.id, { products: [{ sku: acc.skus.active[0], quantity: 1 }] });
    const page = await postForm(app.url, s.public_key, visitor, { headers: { origin: PAGE } });
    expect(page.status).to.equal(403);
    const server = await postForm(app.url, s.public_key, { ...visitor, phone: '0633333333' });
    expect(server.status).to.equal(201);
  });

  it('When the key is unknown or the source inactive, Then 404 and nothing logged', async () => {
    const off = await makeFormSource(acc.id, { origins: [PAGE], active: false });
    expect((await postForm(app.url, off.public_key, visitor)).status).to.equal(404);
    expect((await postForm(app.url, 'pk_nope', visitor)).status).to.equal(404);
    expect(await intakeOf(getCtx(), off.id)).to.have.length(0);
  });

  it("When the form names another account's sku, Then 422 and no lead", async () => {
    const other = await makeAccount(getCtx());
    const s = await source();
    const res = await postForm(app.url, s.public_key, { ...visitor, sku: other.skus.active[0] });
    expect(res.status).to.equal(422);
    expect((await res.json()).errors).to.have.keys(['products.0.sku']);
    expect(await leadsOf(getCtx(), s.id)).to.have.length(0);
  });

  it('When the address is read with GET, Then 405', async () => {
    const s = await source();
    const res = await fetch(`${app.url}/api/web/1.0/intake/forms/${s.public_key}`);
    expect(res.status).to.equal(405);
  });
});

describe('Form endpoint: CORS preflight', () => {
  const app = useTestServer();
  const preflight = (url: string, key: string, origin: string) =>
    fetch(`${url}/api/web/1.0/intake/forms/${key}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });

  it('When an allowed origin asks, Then 204 allowing exactly that origin, POST and Content-Type', async () => {
    const acc = await makeAccount(getCtx());
    const s = await makeFormSource(acc.id, { origins: [PAGE] });
    const res = await preflight(app.url, s.public_key, PAGE);
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
    expect(res.headers.get('access-control-allow-methods')).to.equal('POST');
    expect(res.headers.get('access-control-allow-headers')).to.match(/Content-Type/);
  });

  it('When another origin asks, Then no CORS header at all (never *)', async () => {
    const acc = await makeAccount(getCtx());
    const s = await makeFormSource(acc.id, { origins: [PAGE] });
    const res = await preflight(app.url, s.public_key, 'https://evil.example');
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    expect(res.headers.get('access-control-allow-methods')).to.equal(null);
  });
});
