import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, panelApi, sessionClient, type SessionClient } from '../session.js';

/**
 * Issue 41, "no dead ends": the panel's import page. The file goes to the dashboard's POST /leads/import; the page
 * reads its account choices from the leads' importFile action and follows the run through the import runs'
 * importReport action (docs/import-export.md, "In the panel").
 */
async function upload(c: SessionClient, name: string, content: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content]), name);
  const res = await c.fetch('/leads/import', { method: 'POST', body: form });
  return { status: res.status, body: await res.json() };
}

describe('panel: the import page (importFile, importReport)', () => {
  const web = useTestServer();
  let a: TestAccount;
  let b: TestAccount;
  let seller: SessionClient;
  const report = (c: SessionClient, id: unknown) =>
    panelApi(c, web.url, 'GET', `import_runs/records/${String(id)}/importReport`);

  before(async () => {
    [a, b] = [await makeAccount(getCtx()), await makeAccount(getCtx())];
    seller = await login(web.url, a.seller.email, a.seller.password);
  });

  it('When a seller uploads one good and one bad row, Then the report follows the run: queued, then 1 created, 1 refused with its line and reason', async () => {
    const sku = a.skus.active[0];
    const up = await upload(seller, 'two.csv', `phone,sku,full_name\n+212600710001,${sku},Good Row\n123,${sku},Bad\n`);
    expect(up.status).to.equal(202);
    const queued = await report(seller, up.body.id);
    expect(queued.status).to.equal(200);
    expect(queued.body.run).to.include({ id: up.body.id, status: 'queued', file_name: 'two.csv', rows_written: 0 });
    expect(queued.body.refused).to.deep.equal([]);

    await getCtx().services.imports.run(up.body.id);
    const done = await report(seller, up.body.id);
    expect(done.body.run).to.include({
      status: 'completed',
      rows_written: 1,
      rows_failed: 1,
      percent: 100,
      error: null,
    });
    expect(done.body.refused).to.have.length(1);
    expect(done.body.refused[0]).to.include({ row: 3, column: 'phone' });
    expect(done.body.refused[0].message).to.match(/phone/i);
    expect(done.body.record.params.id).to.equal(up.body.id);
    expect(done.text).to.not.include('file_path');
  });

  it('When a French seller imports a row with an unknown sku, Then the page reads the reason in French, naming the sku', async () => {
    await getCtx().db.sequelize.query("UPDATE users SET language = 'fr' WHERE id = $1", { bind: [b.seller.id] });
    const fr = await login(web.url, b.seller.email, b.seller.password);
    const up = await upload(fr, 'sku.csv', 'phone,sku,full_name\n+212600710077,NOPE-9,Unknown Sku\n');
    expect(up.status).to.equal(202);
    await getCtx().services.imports.run(up.body.id);
    const done = await report(fr, up.body.id);
    expect(done.body.refused).to.have.length(1);
    expect(done.body.refused[0].message).to.match(/^Le SKU « NOPE-9 » n'existe pas/);
  });

  it('When a run fails, Then the report says why', async () => {
    const up = await upload(seller, 'nosku.csv', 'phone,full_name\n+212600710002,No Sku\n');
    await getCtx().services.imports.run(up.body.id);
    const failed = await report(seller, up.body.id);
    expect(failed.body.run.status).to.equal('failed');
    expect(failed.body.run.error).to.match(/sku/i);
  });

  it("When another account's seller, an agent or a stranger asks for A's run, Then nothing of it is answered", async () => {
    const up = await upload(seller, 'mine.csv', `phone,sku\n+212600710003,${a.skus.active[0]}\n`);
    const other = await login(web.url, b.seller.email, b.seller.password);
    // AdminJS answers a refusal as a notice (HTTP 200) and an empty record: no run, nothing of the file
    const nothing = (answer: { status: number; text: string; body: any }, label: string) => {
      expect(answer.status, label).to.be.lessThan(500);
      expect(answer.body?.notice?.type, `${label}: ${answer.text}`).to.equal('error');
      expect(answer.body, label).to.not.have.any.keys('run', 'refused');
      expect(answer.body.record?.params ?? {}, label).to.deep.equal({});
      expect(answer.text, label).to.not.include('mine.csv');
    };
    const theirs = await report(other, up.body.id);
    nothing(theirs, 'another account');
    expect(theirs.body.notice.message).to.match(/cannot be found/i);
    const agent = await login(web.url, a.agent.email, a.agent.password);
    nothing(await report(agent, up.body.id), 'an agent');
    const anonymous = await sessionClient(web.url).fetch(
      `/admin/api/resources/import_runs/records/${up.body.id}/importReport`,
    );
    expect(anonymous.status).to.be.within(300, 499);
    expect(await anonymous.text()).to.not.include('mine.csv');
    for (const id of ['abc', '0', '-1', '99999999999', "1'"]) nothing(await report(seller, encodeURIComponent(id)), id);
    expect((await getCtx().models.ImportRun.findByPk(up.body.id))!.status).to.equal('queued');
  });

  it('When the page opens, Then an admin is offered the accounts and a seller none; an agent is refused', async () => {
    const admin = await makeAdmin(getCtx());
    const adminClient = await login(web.url, admin.email, admin.password);
    const choices = await panelApi(adminClient, web.url, 'GET', 'leads/actions/importFile');
    expect(choices.body.accounts).to.deep.include({ id: b.id, name: b.name });
    expect((await panelApi(seller, web.url, 'GET', 'leads/actions/importFile')).body).to.deep.equal({ accounts: null });
    const agent = await login(web.url, a.agent.email, a.agent.password);
    const refused = await panelApi(agent, web.url, 'GET', 'leads/actions/importFile');
    expect(refused.body.notice?.type, refused.text).to.equal('error');
    expect(refused.body).to.not.have.any.keys('accounts');
  });

  it('When the old address /leads/import is opened, Then a seller is sent to the panel page and an agent refused', async () => {
    const res = await seller.fetch('/leads/import', { headers: { accept: 'text/html' } });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/admin/resources/leads/actions/importFile');
    const agent = await login(web.url, a.agent.email, a.agent.password);
    const page = await agent.fetch('/leads/import', { headers: { accept: 'text/html' } });
    expect(page.status).to.equal(403);
    expect(await page.text()).to.not.include('<form');
  });
});
