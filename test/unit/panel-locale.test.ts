import { expect } from 'chai';
import type AdminJS from 'adminjs';
import en from '../../admin/locales/en.json' with { type: 'json' };
import { getCtx } from '../hooks.js';

type Words = Record<string, unknown>;
const WHERE = ['list', 'show', 'edit', 'filter'] as const;

/** What i18next finds at a dotted key of the locale (AdminJS nests keys by their dots). */
function lookUp(words: Words, key: string): unknown {
  return key.split('.').reduce<unknown>((at, part) => (at as Words | undefined)?.[part], words);
}
/** A word of the resource's own section or the global one, as AdminJS looks it up. */
const hasWord = (resourceId: string, kind: string, name: string) =>
  typeof lookUp(en, `resources.${resourceId}.${kind}.${name}`) === 'string' ||
  typeof lookUp(en, `${kind}.${name}`) === 'string';

async function panel(): Promise<AdminJS> {
  const { choosePanelBundle } = await import('../../admin/panel-components.js');
  const { buildPanelRouter, builtPanel } = await import('../../admin/admin.js');
  const ctx = getCtx();
  await buildPanelRouter(ctx, choosePanelBundle(ctx.config.dataDir));
  return builtPanel()!;
}

/** Every word the panel shows comes from admin/locales/en.json: AdminJS's start-cased fallback ("Rows Total") is a bug. */
describe('panel locale: every shown resource, property, action and value has its words in en.json', function () {
  this.timeout(60_000);

  it('When the built panel is walked, Then each resource, each visible property and each open action has a key', async () => {
    const missing: string[] = [];
    for (const resource of (await panel()).resources) {
      const id = resource.id();
      const decorated = resource.decorate();
      if (typeof lookUp(en, `labels.${id}`) !== 'string') missing.push(`labels.${id}`);
      const paths = new Set(WHERE.flatMap((where) => decorated.getProperties({ where }).map((p) => p.propertyPath)));
      paths.add(decorated.titleProperty().propertyPath);
      for (const path of paths) if (!hasWord(id, 'properties', path)) missing.push(`${id}: properties.${path}`);
      for (const [name, action] of Object.entries(decorated.actions)) {
        const declared = (action as unknown as { action: { isAccessible?: unknown; isVisible?: unknown } }).action;
        if (declared.isAccessible === false || declared.isVisible === false) continue;
        if (!hasWord(id, 'actions', name)) missing.push(`${id}: actions.${name}`);
      }
    }
    expect(missing, 'keys missing in admin/locales/en.json').to.deep.equal([]);
  });

  it('When an array property offers values (webhook events, API key scopes), Then each value has its words', async () => {
    const missing: string[] = [];
    for (const resource of (await panel()).resources) {
      for (const property of resource.decorate().getProperties({ where: 'show' })) {
        if (!property.isArray()) continue;
        for (const { value } of property.availableValues() ?? [])
          if (!hasWord(resource.id(), 'labels', `${property.propertyPath}.${value}`))
            missing.push(`${resource.id()}: labels.${property.propertyPath}.${value}`);
      }
    }
    expect(missing, 'value words missing in admin/locales/en.json').to.deep.equal([]);
  });
});
