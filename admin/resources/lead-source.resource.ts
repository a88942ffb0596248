import type {
  ActionContext,
  ActionRequest,
  ActionResponse,
  PropertyOptions,
  RecordJSON,
  ResourceWithOptions,
} from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { can } from '../../src/policy.js';
import { SOURCE_KINDS } from '../../src/sources/lead-source.model.js';
import { accountChoiceProp, chosen } from './account-choice.js';
import { actorOf, allow, tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { defaultLines, mappingOf, sourceProductChoices } from './source-products.js';
import { checked, hidden, nav, noWrapProps, showOnly, text, type PanelComponents } from './panel-ui.js';

/** The texts of the show page a component draws (admin/components/source-parts.tsx); not columns. */
const SHOWN = [
  'pricing',
  'intake_url',
  'snippet',
  'intake_log',
  'signing_secret_hint',
  'products_text',
  'mapping_text',
];

/** The form's fields the service takes (what AdminJS posts also carries the record's other columns). */
function sourceBody(p: Record<string, unknown>): Record<string, unknown> {
  const mapping = mappingOf(p);
  return {
    ...(p.name !== undefined ? { name: p.name } : {}),
    // the edit form posts the whole list: none posted is an emptied list, an emptied address no address
    allowed_origins: Array.isArray(p.allowed_origins) ? p.allowed_origins : [],
    thank_you_url: p.thank_you_url ?? null,
    ...(p.signing_secret !== undefined ? { signing_secret: p.signing_secret } : {}),
    ...(p.active !== undefined ? { active: checked(p.active) } : {}),
    default_products: defaultLines(p),
    ...(mapping === undefined ? {} : { product_mapping: mapping }),
  };
}

/** Each listed source's health, from the service (the one rule, sourceHealth). */
function healthAfter(ctx: AppContext) {
  return async (response: ActionResponse, _request: ActionRequest, context: ActionContext) => {
    const records = (response.records ?? []) as RecordJSON[];
    const health = await ctx.services.sources.health(
      actorOf(context),
      records.map((r) => Number(r.params.id)),
    );
    for (const r of records) r.params.health = JSON.stringify(health.get(Number(r.params.id)));
    return response;
  };
}

/** The show page's parts from the service's view: address, snippet, health, secret hint, products and mapping. */
function viewAfter(ctx: AppContext) {
  return async (response: ActionResponse, _request: ActionRequest, context: ActionContext) => {
    const params = response.record?.params as Record<string, unknown> | undefined;
    if (!params?.id) return response;
    const view = await ctx.services.sources.show(actorOf(context), Number(params.id));
    // shown as JSON texts below (AdminJS flattened the columns into keys)
    for (const k of Object.keys(params)) if (/^(default_products|product_mapping)(\.|$)/.test(k)) delete params[k];
    Object.assign(params, {
      health: JSON.stringify(view.health),
      // a form says in words whether it can price a lead (docs/lead-sources.md "Cannot price leads")
      pricing: view.kind !== 'form' ? '' : view.health.state === 'no_products' ? 'no_products' : 'priced',
      intake_url: view.intake_url,
      snippet: view.snippet ?? '',
      intake_log: `/admin/resources/lead_intake?filters.source_id=${view.id}`,
      signing_secret_hint: view.signing_secret_hint ?? '',
      products_text: JSON.stringify(view.default_products, null, 2),
      mapping_text: JSON.stringify(view.product_mapping, null, 2),
    });
    return response;
  };
}

/**
 * The source filter of the leads list searches here: a role that may list leads but not view sources (an agent) is
 * answered each source's id and name only.
 */
function namesOnlyAfter(response: ActionResponse, _request: ActionRequest, context: ActionContext) {
  if (can(actorOf(context), 'view', 'source')) return response;
  for (const r of (response.records ?? []) as RecordJSON[]) r.params = { id: r.params.id, name: r.params.name };
  return response;
}

/** Which columns the list, filters, show page and form use. */
const SOURCE_LAYOUT = {
  titleProperty: 'name',
  listProperties: ['name', 'kind', 'active', 'health', 'created_at', 'account_id'],
  filterProperties: ['name', 'kind', 'active', 'created_at', 'account_id'],
  showProperties: [
    'name',
    'kind',
    'active',
    'health',
    'pricing',
    'intake_url',
    'snippet',
    'intake_log',
    'allowed_origins',
    'thank_you_url',
    'signing_secret_state',
    'signing_secret_hint',
    'products_text',
    'mapping_text',
    'created_by',
    'created_at',
    'updated_at',
    'account_id',
  ],
  editProperties: [
    'account_id',
    'kind',
    'name',
    'allowed_origins',
    'thank_you_url',
    'signing_secret',
    'default_products',
    'product_mapping',
    'active',
  ],
  sort: { sortBy: 'created_at', direction: 'desc' as const },
};

/** Computed parts drawn by admin/components/source-parts.tsx, the form's create-only kind and write-only secret. */
function sourceProperties(components: PanelComponents): Record<string, PropertyOptions> {
  const part = { components: { show: components.sourceParts } };
  return {
    ...accountChoiceProp,
    ...noWrapProps(components.noWrap, ['name']),
    kind: {
      availableValues: SOURCE_KINDS.map((value) => ({ value, label: value })),
      components: { list: components.sourceParts, edit: components.sourceParts },
    },
    health: {
      type: 'string',
      isSortable: false,
      isVisible: { list: true, filter: false, show: true, edit: false },
      components: { list: components.sourceParts, show: components.sourceParts },
    },
    ...Object.fromEntries(SHOWN.map((path) => [path, { type: 'string', isVisible: showOnly, ...part }])),
    allowed_origins: { description: 'descriptions.sourceOrigins', isRequired: false },
    thank_you_url: { description: 'descriptions.sourceThankYou' },
    signing_secret: {
      isVisible: { list: false, filter: false, show: false, edit: true },
      description: 'descriptions.sourceSecret',
      components: { edit: components.sourceParts },
    },
    signing_secret_state: { type: 'string', isVisible: showOnly },
    public_key: { isVisible: hidden },
    // edited with the leads' products editor and the mapping editor (admin/resources/source-products.ts)
    default_products: {
      type: 'mixed',
      isVisible: { list: false, filter: false, show: false, edit: true },
      description: 'descriptions.sourceProducts',
      components: { edit: components.productsEditor },
    },
    product_mapping: {
      type: 'mixed',
      isVisible: { list: false, filter: false, show: false, edit: true },
      description: 'descriptions.sourceMapping',
      components: { edit: components.sourceParts },
    },
  };
}

/**
 * An account's lead sources (docs/lead-sources.md "In the panel"): forms and shops, their health, address and
 * snippet. Writes are services.sources calls; the signing secret is a withheld column (the scoped adapter never
 * selects it), so a page shows only whether one is set and its last characters.
 */
export function leadSourceResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.LeadSource,
    options: {
      navigation: nav.leads,
      ...SOURCE_LAYOUT,
      properties: sourceProperties(components),
      actions: {
        ...tenantReadActions('source'),
        search: { isAccessible: allow('lead', 'viewAny'), after: namesOnlyAfter as never },
        list: { isAccessible: allow('source', 'viewAny'), after: healthAfter(ctx) as never },
        show: { isAccessible: allow('source', 'view'), after: viewAfter(ctx) as never },
        productChoices: sourceProductChoices(ctx),
        ...serviceActions('source', {
          create: (actor, p) =>
            services.sources.create(actor, { ...chosen(actor, p), kind: text(p.kind), ...sourceBody(p) }),
          update: (actor, id, p) => services.sources.update(actor, id, sourceBody(p)),
          remove: async (actor, ids) => {
            for (const id of ids) await services.sources.remove(actor, id);
          },
          defaults: { kind: 'form', active: 'true' },
        }),
        // one source at a time: a bulk delete through a per-id service call could stop half-way
        bulkDelete: { isAccessible: false },
      },
    },
  };
}
