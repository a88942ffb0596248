import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer } from '../helpers.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve('test-artifacts');

export function chromiumAvailable(): boolean {
  return fs.existsSync(CHROMIUM);
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** A screenshot in test-artifacts/ (the whole page, or only the viewport for the small pictures of docs/images/). */
export async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: options.fullPage ?? true });
}

/**
 * Logs in through the one dashboard login page and lands in the panel. It waits for the panel's address only (the
 * answer to the login's redirect), not for the panel page's `load`: each test waits for what it reads, and a loaded
 * machine parsing the panel's scripts passed 30 s before `load` (the official CI of stop 46).
 */
export async function loginAs(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(/\/admin/, { waitUntil: 'commit' }), page.click('button[type=submit]')]);
}

type Viewport = { width: number; height: number };

/**
 * The real HTTP app and Chromium for the enclosing `describe`: started before its tests, closed after them; the suite
 * is skipped with a message when Chromium is absent. Read `url` and `browser` inside tests, once they have started.
 * `signedIn` opens a page in its own browser context (its own cookies: two users are two people), closed after.
 */
export function useBrowser(): {
  readonly url: string;
  readonly browser: Browser;
  signedIn(
    user: { email: string; password: string },
    options?: { viewport?: Viewport; timeout?: number },
  ): Promise<Page>;
} {
  let web: Awaited<ReturnType<typeof startTestServer>> | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  before(async function () {
    if (!chromiumAvailable()) {
      console.log(`      browser tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
      this.skip();
    }
    web = await startTestServer();
    browser = await launch();
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await web?.close();
  });
  return {
    get url() {
      return web!.url;
    },
    get browser() {
      return browser!;
    },
    async signedIn(user, { viewport = { width: 1360, height: 900 }, timeout } = {}) {
      const context = await browser!.newContext({ viewport });
      contexts.push(context);
      const page = await context.newPage();
      // the first panel page of a run may wait for AdminJS to bundle its components
      if (timeout) page.setDefaultTimeout(timeout);
      await loginAs(page, web!.url, user.email, user.password);
      return page;
    },
  };
}
