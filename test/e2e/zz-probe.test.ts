import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { loginAs, shot, useBrowser } from '../e2e/browser.js';
describe('probe', function () {
  this.timeout(200_000);
  const app = useBrowser();
  it('probe', async () => {
    const acc = await makeAccount(getCtx());
    await getCtx().models.User.update({ language: 'ar' }, { where: { id: acc.seller.id } });
    const c = await app.browser.newContext({ viewport: { width: 1366, height: 800 } });
    const p = await c.newPage();
    p.setDefaultTimeout(90_000);
    p.on('console', (m) => console.log('console', m.type(), m.text().slice(0, 300)));
    await loginAs(p, app.url, acc.seller.email, acc.seller.password);
    await p.goto(`${app.url}/admin/resources/leads`);
    await p.waitForTimeout(3000);
    const html = await (await c.request.get(`${app.url}/admin/resources/leads`)).text();
    console.log(html.slice(0, 300));
    console.log(await p.evaluate(() => document.documentElement.outerHTML.slice(0, 200)));
    console.log(await p.locator('[data-css=topbar]').innerHTML());
    await shot(p, 'probe-ar', { fullPage: false });
  });
});
