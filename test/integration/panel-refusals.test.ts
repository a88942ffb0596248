import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAdmin, makeFilledAccount, type FilledAccount, type TestUser } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login, type SessionClient } from '../session.js';
import { can, type Ability, type Resource } from '../../src/policy.js';
import type { PanelAdmin } from '../../admin/resources/panel-kit.js';

type Rule = { resource: Resource; ability: Ability };
type Row = { toJSON(): Record<string, unknown> };

/** An action's options as the resource declared them (AdminJS keeps them private on its decorator). */
const optionsOf = (decorated: unknown) =>
  (decorated as { action: { isAccessible?: unknown; custom?: unknown } }).action;

/** The policy rule an action's isAccessible names (admin/resources/panel-kit.ts `allow`), or its fixed answer. */
function ruleOf(isAccessible: unknown): Rule | boolean | 'unbound' {
  if (typeof isAccessible === 'boolean') return isAccessible;
  const policy = (isAccessible as { policy?: Rule } | undefined)?.policy;
  return policy ?? 'unbound';
}

/**
 * Generated from the built panel (every resource and action, `builtPanel()`) and src/policy.ts, for every role: an
 * action is offered (menu entry, buttons, the actions the browser is given) exactly when the policy allows it, and one
 * the role may not use is refused at its address before any form or record is shown; a dashboard page an action opens
 * (the import upload) is refused up front too.
 */
describe('admin panel: every action and page a role cannot use is absent and refused up front', function () {
  this.timeout(300_000);
  const web = useTestServer();
  let a: FilledAccount;
  let admin: TestUser;

  before(async () => {
    a = await makeFilledAccount(getCtx(), 'refusals');
    admin = await makeAdmin(getCtx());
    await getCtx().services.catalogue.createCity(admin.actor, `Refusal town ${a.id}`); // a row for record actions
  });

  for (const role of ['agent', 'seller', 'admin'] as const) {
    it(`When the ${role} is signed in, Then each action is offered exactly as the policy allows, and the others are refused at their address`, async () => {
      const user = role === 'admin' ? admin : a[role];
      const client: SessionClient = await login(web.url, user.email, user.password);
      await client.json('GET', '/admin/api/resources/leads/actions/list');
      const { builtPanel } = await import('../../admin/admin.js');
      const panel = builtPanel()!;
      const currentAdmin: PanelAdmin = {
        id: String(user.id),
        userId: user.id,
        email: user.email,
        title: user.name,
        role,
        accountId: user.actor.accountId as number,
        timeZone: 'UTC',
        language: 'en',
        languageChosen: null,
      };
      const problems: string[] = [];
      let refusedChecked = 0;
      for (const resource of panel.resources) {
        const rid = resource.id();
        const decorated = resource.decorate();
        const model = (
          resource as unknown as { model: { getAttributes(): object; findOne(o: object): Promise<Row | null> } }
        ).model;
        const tenant = 'account_id' in model.getAttributes() ? { account_id: a.id } : {};
        const own = rid === 'accounts' ? { id: a.id } : (await model.findOne({ where: tenant }))?.toJSON();
        const offered = new Set(decorated.resourceActions(currentAdmin).map((x) => x.name));
        for (const [name, action] of Object.entries(decorated.actions)) {
          const where = `${role} ${rid}.${name}`;
          const rule = ruleOf(optionsOf(action).isAccessible);
          if (rule === 'unbound') {
            problems.push(`${where}: isAccessible is not a policy rule (allow()) nor closed`);
            continue;
          }
          const allowed = typeof rule === 'boolean' ? rule : can(user.actor, rule.ability, rule.resource);
          if (action.isAccessible(currentAdmin) !== allowed)
            problems.push(`${where}: accessible ≠ policy (${allowed})`);
          if (action.isResourceType() && action.isVisible(currentAdmin) && offered.has(name) !== allowed)
            problems.push(`${where}: offered ≠ ${allowed}`);
          if (name === 'list' && !!decorated.getHref(currentAdmin) !== allowed) problems.push(`${where}: menu entry`);
          if (allowed) continue;
          const url = action.isResourceType()
            ? `/admin/api/resources/${rid}/actions/${name}`
            : action.isRecordType()
              ? `/admin/api/resources/${rid}/records/${own?.id}/${name}`
              : `/admin/api/resources/${rid}/bulk/${name}?recordIds=${own?.id}`;
          for (const method of ['GET', 'POST'] as const) {
            const res = await client.fetch(url, {
              method,
              headers: { origin: web.url },
              ...(method === 'POST' ? { json: {} } : {}),
            });
            const text = await res.text();
            const body = JSON.parse(text) as {
              record?: { params?: object; baseError?: { type?: string } };
              records?: unknown[];
            };
            refusedChecked += 1;
            // AdminJS answers a refused action with its ForbiddenError ("You are not allowed to do this.") and no data
            const refused = res.status === 403 || body.record?.baseError?.type === 'ForbiddenError';
            if (!refused) problems.push(`${where}: ${method} answered ${res.status} ${text.slice(0, 120)}`);
            if (Object.keys(body.record?.params ?? {}).length || body.records?.length)
              problems.push(`${where}: ${method} carried records`);
          }
          const href = (optionsOf(action).custom as { href?: string } | undefined)?.href;
          if (href && !href.includes('{id}')) {
            const page = await client.fetch(href, { headers: { accept: 'text/html' } });
            const text = await page.text();
            if (page.status !== 403 || text.includes('<form'))
              problems.push(
                `${where}: the page ${href} answered ${page.status}${text.includes('<form') ? ' with a form' : ''}`,
              );
          }
        }
      }
      expect(problems.join('\n')).to.equal('');
      if (role !== 'admin') expect(refusedChecked, 'refused actions were called').to.be.greaterThan(0);
    });
  }
});
