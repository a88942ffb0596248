import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type AdminJS from 'adminjs';
import type { BaseRecord, BaseResource } from 'adminjs';
import type { Browser, Page } from 'playwright-core';
import { choosePanelBundle } from '../../admin/panel-components.js';
import { TRANSLATIONS } from '../../admin/panel-locale.js';
import { getCtx } from '../hooks.js';
import { makeAdmin, makeFilledAccount, type FilledAccount, type TestUser } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login } from '../session.js';
import { chromiumAvailable, CHROMIUM, launch, loginAs, shot } from './browser.js';
import { allowCompiledFunctions, problemsOn, type ScreenFacts } from './panel-checks.js';

/**
 * The walk of issue 32: every resource and page of the built panel, as an admin, a seller and an agent, in every
 * language the panel offers, at 1280 px. A screen fails on an array shown raw (`Length:`), a reference shown raw
 * (`User 2`), an untranslated key or English text, a horizontal scrollbar or a table wider than its box, and a time of
 * day without its zone. Every screen is saved to test-artifacts/ (walk-<language>-<role>-<page>.png); with
 * UPDATE_DOCS_IMAGES=1 the seller's curated screens are written to docs/images/<language>/ (CI leaves the repo alone).
 */
export type Language = keyof typeof TRANSLATIONS;
/**
 * AdminJS, imported once the panel's bundle folder is chosen (admin/panel-components.ts): AdminJS reads ADMIN_JS_TMP_DIR
 * when it loads, and an import before that serves a bundle an earlier run left in ./.adminjs (stale components).
 */
let adminjs: typeof import('adminjs');
type Role = 'admin' | 'seller' | 'agent';
type Tree = { [key: string]: string | Tree };

const LANGUAGES = Object.keys(TRANSLATIONS) as Language[];
const ROLES: Role[] = ['admin', 'seller', 'agent'];
const VIEWPORT = { width: 1280, height: 800 };
const UPDATE_DOCS_IMAGES = process.env.UPDATE_DOCS_IMAGES === '1';
const DOCS_IMAGES = path.resolve('docs/images');
/** The record pages and list actions walked on each resource (where the role may use them). */
const RESOURCE_ACTIONS = ['list', 'new', 'show', 'edit'] as const;

/** The screens of docs/images/<language>/: walk page → picture name. */
const DOCS_SET: Record<string, string> = {
  login: 'login',
  dashboard: 'dashboard',
  'leads/list': 'leads-list',
  'leads/show': 'lead-show',
  'leads/edit': 'lead-edit',
  'pages/queue': 'queue',
  'pages/kpi': 'kpi',
  'orders/list': 'orders',
  'webhook_endpoints/list': 'webhook-endpoints',
  'api_tokens/list': 'api-keys',
};

interface Target {
  /** How the failure list names it: `login`, `dashboard`, `pages/queue`, `leads/show`. */
  name: string;
  path: string;
  resourceId?: string;
}

/** Every string of a locale tree, by its dotted key. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

/** The words the panel shows in a language: AdminJS's own texts for it (if it ships them) under the panel's locale. */
function wordsOf(language: string): Map<string, string> {
  const builtIn = (adminjs.locales as Record<string, { translations?: Tree }>)[language]?.translations ?? {};
  return new Map([...flatten(builtIn), ...flatten(TRANSLATIONS[language as Language] as unknown as Tree)]);
}

/** lodash's startCase, as AdminJS labels a name the locale lacks (`finished_at` → "Finished At"). */
const startCase = (name: string) =>
  name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z\d]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');

/** What the checks of one language need to know, per resource (for the start-cased fallbacks of its labels). */
function factsFor(
  resources: BaseResource[],
  language: Language,
  typedNames: string[] = [],
): (resourceId?: string) => ScreenFacts {
  const words = wordsOf(language);
  const own = new Set(words.values());
  const english =
    language === 'en'
      ? []
      : [...wordsOf('en').entries()]
          .filter(([key, value]) => words.get(key) !== value && !own.has(value) && /\p{L}{3}/u.test(value))
          .filter(([, value]) => !value.includes('{{'))
          .map(([, value]) => value);
  const labels = [...flatten(TRANSLATIONS.en.labels as unknown as Tree).values()];
  const translatedLabels = [...flatten(TRANSLATIONS[language].labels as unknown as Tree).values()];
  const resourceNames = [...new Set([...labels, ...translatedLabels])].flatMap((n) => [
    n,
    n.replace(/ies$/, 'y').replace(/s$/, ''),
  ]);
  const fallbacks = new Map<string, string[]>();
  for (const resource of resources) {
    const id = resource.id();
    const decorated = resource.decorate();
    const missing = (kind: string, name: string) =>
      !words.has(`resources.${id}.${kind}.${name}`) && !words.has(`${kind}.${name}`);
    const props = decorated
      .getProperties({ where: 'show' })
      .concat(
        decorated.getProperties({ where: 'list' }),
        decorated.getProperties({ where: 'edit' }),
        decorated.getProperties({ where: 'filter' }),
      );
    fallbacks.set(id, [
      ...new Set(
        [
          ...props.filter((p) => missing('properties', p.name())).map((p) => startCase(p.name())),
          ...Object.keys(decorated.actions)
            .filter((a) => missing('actions', a))
            .map(startCase),
          // a one-word name start-cased is the English word itself ("Status"); in another language it is English
        ].filter((label) => !own.has(label) && (language !== 'en' || label.includes(' '))),
      ),
    ]);
  }
  return (resourceId) => ({
    english: [...new Set(english)],
    fallbacks: resourceId ? (fallbacks.get(resourceId) ?? []) : [],
    resourceNames: [...new Set(resourceNames)],
    lengthWords: [...new Set(['Length', words.get('properties.length') ?? 'Length'])],
    typedNames,
  });
}

/**
 * Names the suite's data gave people, products and accounts that read like a reference ("Customer 0"): a screen that
 * shows one shows what was typed, not a reference shown raw.
 */
async function typedNames(): Promise<string[]> {
  const shaped = (column: string, table: string) =>
    `SELECT ${column} AS name FROM ${table} WHERE ${column} ~ '^\\S+ #?\\d+$'`;
  const [rows] = await getCtx().db.sequelize.query(
    [
      shaped('full_name', 'leads'),
      shaped('full_name', 'orders'),
      shaped('name', 'users'),
      shaped('name', 'accounts'),
      shaped('name', 'products'),
      shaped('name', 'cities'),
      shaped('name', 'lead_sources'),
    ].join(' UNION '),
  );
  return (rows as { name: string }[]).map((r) => r.name);
}

/** The panel's currentAdmin for a user, as admin/panel-guards.ts builds it from the session. */
function currentAdminOf(user: TestUser) {
  return {
    id: String(user.id),
    userId: user.id,
    email: user.email,
    title: user.name,
    role: user.role,
    accountId: user.actor.kind === 'user' ? user.actor.accountId : undefined,
  };
}

/** A row of the filled account in the resource's table (its account itself, a city for shared reference data). */
async function sampleRecord(resource: BaseResource, filled: FilledAccount): Promise<BaseRecord | null> {
  const model = (resource as unknown as { model: { getAttributes(): object; findOne(o: object): Promise<any> } }).model;
  const where =
    'account_id' in model.getAttributes()
      ? { account_id: filled.id }
      : resource.id() === 'accounts'
        ? { id: filled.id }
        : {};
  const row = await model.findOne({ where, order: [['id', 'ASC']] });
  return row ? new adminjs.BaseRecord(row.toJSON(), resource) : null;
}

/**
 * Every screen the role may open, taken from the built panel: the home page, the custom pages, and on each resource
 * the list, new, show and edit actions its isAccessible grants to this user (record actions on a row of the account).
 */
async function targetsOf(admin: AdminJS, user: TestUser, filled: FilledAccount): Promise<Target[]> {
  const currentAdmin = currentAdminOf(user);
  const targets: Target[] = [{ name: 'dashboard', path: '/admin' }];
  for (const page of Object.keys(admin.options.pages ?? {}))
    targets.push({ name: `pages/${page}`, path: `/admin/pages/${page}` });
  for (const resource of admin.resources) {
    const id = resource.id();
    const actions = resource.decorate().actions;
    const record = await sampleRecord(resource, filled);
    for (const name of RESOURCE_ACTIONS) {
      const action = actions[name];
      if (!action) continue;
      if (action.isResourceType() && action.isAccessible(currentAdmin as never))
        targets.push({ name: `${id}/${name}`, path: `/admin/resources/${id}/actions/${name}`, resourceId: id });
      if (action.isRecordType() && record && action.isAccessible(currentAdmin as never, record))
        targets.push({
          name: `${id}/${name}`,
          path: `/admin/resources/${id}/records/${record.id()}/${name}`,
          resourceId: id,
        });
    }
  }
  return targets;
}

/**
 * Opens a panel address the way its own links do (AdminJS's router, without reloading the bundle), and resolves once
 * the screen has asked for nothing for a moment (AdminJS loads a screen's records after the route changes); answers how
 * many panel API calls the screen made meanwhile.
 */
function navigator(page: Page, baseUrl: string): (address: string) => Promise<number> {
  let pending = 0;
  let changed = Date.now();
  let asked = 0;
  const bump = (d: number) => {
    pending += d;
    changed = Date.now();
  };
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/admin/api/')) asked += 1;
    bump(1);
  });
  page.on('requestfinished', () => bump(-1));
  page.on('requestfailed', () => bump(-1));
  return async (address) => {
    bump(0);
    asked = 0;
    if (address.startsWith('/admin') && page.url().startsWith(`${baseUrl}/admin`))
      await page.evaluate((to) => {
        history.pushState({}, '', to);
        dispatchEvent(new PopStateEvent('popstate', { state: {} }));
      }, address);
    else await page.goto(`${baseUrl}${address}`);
    const quiet = async () => {
      const start = Date.now();
      while ((pending > 0 || Date.now() - changed < 150) && Date.now() - start < 15_000)
        await new Promise((r) => setTimeout(r, 20));
    };
    await quiet();
    // a screen that never went quiet is named by its count of calls, not by a wait that times out below
    if (asked > CALLS_PER_SCREEN) return asked;
    // then nothing still loading: AdminJS's spinner, a page's "…" placeholders (the queue's counts)
    await page.waitForFunction(
      (to) =>
        location.pathname + location.search === to &&
        !document.querySelector('.adminjs_Loader') &&
        ![...document.querySelectorAll('body *')].some((el) => el.childElementCount === 0 && el.textContent === '…'),
      address,
      { timeout: 45_000 },
    );
    await quiet();
    return asked;
  };
}

/** More panel API calls than any screen needs to show itself: a screen past it reloads itself without end. */
const CALLS_PER_SCREEN = 20;

/** The panel shows `language` when its menu carries that language's words for resources and pages (where they differ). */
async function showsLanguage(page: Page, language: Language): Promise<boolean> {
  const menuWords = (l: Language) =>
    new Map([
      ...flatten(TRANSLATIONS[l].labels as unknown as Tree),
      ...flatten((TRANSLATIONS[l] as unknown as { pages?: Tree }).pages ?? {}),
    ]);
  const en = menuWords('en');
  const own = [...menuWords(language)].filter(([k, v]) => en.get(k) !== v);
  if (!own.length) return true;
  // the menu is folded away at 1280 px: its words are in the document, not on screen
  const menu = (await page.locator('body').textContent()) ?? '';
  return own.some(([, v]) => menu.includes(v));
}

/**
 * Chooses the language as the panel offers it: the browser's language (the context's locale) is the default; if the
 * panel does not follow it, AdminJS's language menu in the top bar (a button naming the current language). Adapt here
 * if the panel moves the choice (a user setting): every check of the walk depends on it.
 */
async function chooseLanguage(page: Page, language: Language): Promise<void> {
  if (await showsLanguage(page, language)) return;
  const names = (code: string) =>
    [
      ...new Set(
        LANGUAGES.concat('en' as Language).map((l) =>
          wordsOf(l).get(`components.LanguageSelector.availableLanguages.${code}`),
        ),
      ),
    ]
      .filter((n): n is string => !!n)
      .concat(code);
  const any = new RegExp(`^(${LANGUAGES.flatMap(names).join('|')})$`);
  await page.getByRole('button', { name: any }).first().click();
  await page
    .getByText(new RegExp(`^(${names(language).join('|')})$`))
    .last()
    .click();
  await page.mouse.move(0, VIEWPORT.height - 1);
  expect(await showsLanguage(page, language), `the panel shows ${language} once chosen`).to.equal(true);
}

/** One line per problem, with the screens it is on (the menu and the top bar are on every screen). */
function grouped(problems: { screen: string; problem: string }[]): string {
  const screens = new Map<string, string[]>();
  for (const { screen, problem } of problems) screens.set(problem, [...(screens.get(problem) ?? []), screen]);
  return [...screens]
    .map(([problem, on]) => `  ${problem}\n      on ${on.length > 6 ? `${on.length} screens: ` : ''}${on.join(', ')}`)
    .join('\n');
}

/** Texts as long as the real ones (a carrier's and a receiver's error answers), so a table that cannot hold them shows. */
async function realisticLengths(filled: FilledAccount): Promise<void> {
  const { models } = getCtx();
  const error =
    'Carrier answered 502 Bad Gateway: upstream connect error or disconnect/reset before headers. reset reason: ' +
    'connection failure, transport failure reason: delayed connect error: 111';
  await models.Order.update({ last_push_error: error, push_attempts: 3 }, { where: { account_id: filled.id } });
  await models.WebhookDelivery.update(
    { last_error: error, response_code: 502, attempts: 2, duration_ms: 1234 },
    { where: { account_id: filled.id } },
  );
}

/**
 * The walk of `languages` (one test file each, so that the three walks run on parallel shards: a language's walk takes
 * minutes), with the walk's own checks (`checks`) in one of them. The suite's title is the same in every file.
 */
export function describeWalk(languages: Language[], opts: { checks: boolean }): void {
  describe('panel walk: every resource and page, as every role, in every language, at 1280 px', function () {
    this.timeout(600_000);
    let web: Awaited<ReturnType<typeof startTestServer>>;
    let browser: Browser;
    let filled: FilledAccount;
    let users: Record<Role, TestUser>;

    before(async function () {
      if (!chromiumAvailable()) {
        console.log(`      browser tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
        this.skip();
      }
      // the bundle folder the server's panel will use (the same choice admin/router.ts makes), then AdminJS
      choosePanelBundle(getCtx().config.dataDir);
      adminjs = await import('adminjs');
      [web, browser] = await Promise.all([startTestServer(), launch()]);
      filled = await makeFilledAccount(getCtx(), 'walk');
      await realisticLengths(filled);
      users = { admin: await makeAdmin(getCtx()), seller: filled.seller, agent: filled.agent };
      // AdminJS bundles the components on the first request for them; the three walks of a language start at once, and
      // on a busy machine one was served the bundle half-written ("Component … not found" in every cell): built here once
      const client = await login(web.url, users.seller.email, users.seller.password);
      expect((await client.fetch('/admin/frontend/assets/components.bundle.js')).status).to.equal(200);
    });
    after(async () => {
      await browser?.close();
      await web?.close();
    });

    async function walk(role: Role, language: Language): Promise<{ screen: string; problem: string }[]> {
      const context = await browser.newContext({ viewport: VIEWPORT, locale: language });
      try {
        await allowCompiledFunctions(context);
        const page = await context.newPage();
        // the first panel page of a run may wait for AdminJS to bundle its components
        page.setDefaultTimeout(180_000);
        const open = navigator(page, web.url);
        const problems: { screen: string; problem: string }[] = [];
        const docs = UPDATE_DOCS_IMAGES && role === 'seller';
        const look = async (target: Target, facts: ScreenFacts) => {
          const calls = await open(target.path);
          // the walk stops there: what follows would be judged on a session whose request budget the screen spent
          if (calls > CALLS_PER_SCREEN)
            throw new Error(`${target.name} asked the panel API ${calls} times before it settled (it reloads itself)`);
          await shot(page, `walk-${language}-${role}-${target.name.replace('/', '-')}`);
          if (docs && DOCS_SET[target.name]) {
            fs.mkdirSync(path.join(DOCS_IMAGES, language), { recursive: true });
            await page.screenshot({ path: path.join(DOCS_IMAGES, language, `${DOCS_SET[target.name]}.png`) });
          }
          for (const problem of await problemsOn(page, facts)) problems.push({ screen: target.name, problem });
        };

        await look({ name: 'login', path: '/login' }, factsFor([], language)());
        await loginAs(page, web.url, users[role].email, users[role].password);
        await chooseLanguage(page, language);
        const { builtPanel } = await import('../../admin/admin.js');
        const admin = builtPanel()!;
        const facts = factsFor(admin.resources, language, await typedNames());
        for (const target of await targetsOf(admin, users[role], filled)) await look(target, facts(target.resourceId));
        return problems;
      } finally {
        await context.close();
      }
    }

    // The three roles of a language walk at once, each in its own browser context (the server and the browser wait on
    // each other more than they compute); each role's test reads its own walk's answer.
    type Walked = Promise<{ screen: string; problem: string }[]>;
    const walks = new Map<Language, Record<Role, Walked>>();
    const walked = (role: Role, language: Language): Walked => {
      if (!walks.has(language)) {
        const started = Object.fromEntries(ROLES.map((r) => [r, walk(r, language)])) as Record<Role, Walked>;
        // a walk that fails is reported by its own role's test; the others must not see an unhandled rejection
        for (const w of Object.values(started)) w.catch(() => undefined);
        walks.set(language, started);
      }
      return walks.get(language)![role];
    };

    for (const language of languages)
      for (const role of ROLES)
        it(`as ${role} in ${language}: no raw array or reference, untranslated text, horizontal scroll or zoneless time`, async () => {
          const problems = await walked(role, language);
          if (problems.length) expect.fail(`problems as ${role} in ${language}:\n${grouped(problems)}`);
        });

    if (opts.checks)
      describe("the walk's checks, on pages made to fail them and on pages that are right", () => {
        const facts: ScreenFacts = {
          english: ['Save'],
          fallbacks: ['Finished At'],
          resourceNames: ['User', 'Users'],
          lengthWords: ['Length', 'Longueur'],
        };
        async function problemsOf(html: string): Promise<string[]> {
          const context = await browser.newContext({ viewport: VIEWPORT });
          try {
            await allowCompiledFunctions(context);
            const page = await context.newPage();
            await page.setContent(`<!doctype html><html><body style="margin:0">${html}</body></html>`);
            return await problemsOn(page, facts);
          } finally {
            await context.close();
          }
        }
        const cases: { check: string; wrong: string; right: string; says: RegExp }[] = [
          {
            check: 'an array as `Length: n`',
            wrong:
              '<table><tr><td>Events</td><td>Length: 2</td></tr><tr><td>Scopes</td><td>Longueur: 9</td></tr></table>',
            right:
              '<table><tr><td>Events</td><td><ul><li>lead.created</li><li>order.created</li></ul></td></tr></table>',
            says: /an array shown raw: "Length: 2"/,
          },
          {
            check: 'a reference as `User n`',
            wrong: '<p>Owner <a href="#">User 2</a></p>',
            right: '<p>Owner <a href="#">Amina Benali</a>, 2 users, Users: 2</p>',
            says: /a reference shown raw: "User 2"/,
          },
          {
            check: 'a locale key',
            wrong: '<label>properties.finished_at</label>',
            right: '<label>Finished</label><a href="https://example.com/resources.leads">docs</a>',
            says: /an untranslated key: "properties.finished_at"/,
          },
          {
            check: 'English text in another language',
            wrong: '<button>Save</button>',
            right: '<button>Enregistrer</button><p>Saved by the seller</p>',
            says: /an untranslated text \(English\): "Save"/,
          },
          {
            check: 'a column name start-cased',
            wrong: '<table><thead><tr><th>Finished At</th></tr></thead></table>',
            right: '<table><thead><tr><th>Finished</th></tr></thead></table>',
            says: /a column name start-cased\): "Finished At"/,
          },
          {
            check: 'a horizontal scrollbar',
            wrong: '<div style="width:1400px">wide</div>',
            right: '<div style="width:1200px">fits</div>',
            says: /a horizontal scrollbar: the page is 1400 px wide in 1280 px/,
          },
          {
            check: 'a table wider than its box',
            wrong:
              '<div style="width:600px;overflow-x:auto"><table style="width:700px"><thead><tr><th>Ref</th></tr></thead></table></div>',
            right:
              '<div style="width:600px;overflow-x:auto"><table style="width:100%"><thead><tr><th>Ref</th></tr></thead></table></div>',
            says: /a table wider than its box: 700 px in 600 px \(columns Ref\)/,
          },
          {
            check: 'a time without its zone',
            wrong: '<p>Created 2026-11-27 11:57</p>',
            right:
              '<p>2026-11-27 11:57 <small>Africa/Casablanca</small></p><p>12:57 GMT+1</p><p>11:57 UTC</p>' +
              '<pre>"created_at": "2026-11-27T11:57:17.329+00:00"</pre><p>http://127.0.0.1:5432/x</p>',
            says: /a time without its zone: "Created 2026-11-27 11:57"/,
          },
        ];
        for (const { check, wrong, right, says } of cases)
          it(`When a screen shows ${check}, Then the walk names it; a screen in words passes`, async () => {
            const found = await problemsOf(wrong);
            expect(found.join('\n')).to.match(says);
            expect(await problemsOf(right)).to.deep.equal([]);
          });
      });
  });
}
