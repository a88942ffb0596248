import { expect } from 'chai';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useBrowser } from './browser.js';

describe('panel Log out in Chromium', function () {
  this.timeout(240_000);
  const app = useBrowser();

  it('When a seller clicks Log out in the top bar, Then the session ends and the old cookie opens nothing', async () => {
    const acc = await makeAccount(getCtx());
    const page = await app.signedIn(acc.seller, { timeout: 180_000 });
    const context = page.context();
    await page.waitForSelector('[data-css="logged-in"]', { timeout: 60_000 });
    const old = (await context.cookies()).find((c) => c.name === 'leadflow.sid')!;
    expect(old).to.not.equal(undefined);

    // AdminJS's user menu in the top bar: open it, then its Log out entry
    await page.click('[data-css="logged-in"]');
    await Promise.all([
      page.waitForURL(/\/login$/),
      page
        .getByText(/log ?out/i)
        .last()
        .click(),
    ]);
    expect(await page.locator('#password').count()).to.equal(1);

    // the old cookie, put back into the browser, is refused: /admin lands on the login page
    await context.addCookies([old]);
    await page.goto(`${app.url}/admin`);
    expect(new URL(page.url()).pathname).to.equal('/login');
    expect(await page.locator('#password').count()).to.equal(1);
    const sid = decodeURIComponent(old.value).replace(/^s:/, '').split('.')[0];
    expect(await getCtx().models.Session.count({ where: { sid } })).to.equal(0);
    await context.close();
  });
});
