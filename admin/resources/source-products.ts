import type { ActionContext, ActionRequest } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { targetAccount } from '../../src/policy.js';
import { isRowId } from '../../src/query.js';
import { actorOf, allow, guarded } from './panel-kit.js';

/**
 * A lead source's products on its create and edit forms (docs/lead-sources.md "In the panel"): the default product
 * lines, edited with the leads' products editor (admin/components/products-editor.tsx, rows
 * `default_products.N.sku|quantity|price`), and the sku mapping (admin/components/sku-mapping.tsx, rows
 * `product_mapping.N.from|to`: a key of the page or shop may hold dots or be all digits, which a flattened
 * `product_mapping.<key>` would read as a path or an array index). Both are saved by the sources service, which checks
 * every sku against the account's active products.
 */

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The form's default lines as the service takes them. The form posts the whole list, so none posted is an emptied
 * list; a row added and never filled goes as it is, and the service refuses it under its row (as a lead's).
 */
export function defaultLines(p: Record<string, unknown>): Row[] {
  return Array.isArray(p.default_products) ? p.default_products.filter(isRow) : [];
}

/**
 * The mapping rows → the object the service takes (`{"<page or shop sku>": "<account sku>"}`). Rows are what the
 * mapping editor posts; without rows (a form that never loaded the editor) the mapping is not sent, so it is kept.
 * A row with a key and no target is sent with an empty target, which the service refuses under its key.
 */
export function mappingOf(p: Record<string, unknown>): Record<string, string> | undefined {
  const value = p.product_mapping;
  if (!Array.isArray(value)) return undefined;
  const rows = value.filter(isRow);
  if (rows.length !== value.filter((v) => v !== undefined).length) return undefined;
  const out: Record<string, string> = {};
  for (const r of rows) {
    const from = String(r.from ?? '').trim();
    if (from) Object.defineProperty(out, from, { value: String(r.to ?? ''), enumerable: true, writable: true });
  }
  return out;
}

/**
 * What the source form's editors list: the active products of the source's account (a new source: the account an
 * admin chose, a tenant's own whatever the query says) and, for a source (`?id=`), its default lines and mapping.
 * Hidden: called by the products editor and the mapping editor.
 */
export function sourceProductChoices(ctx: AppContext) {
  return {
    actionType: 'resource' as const,
    component: false as const,
    isVisible: false,
    isAccessible: allow('source', 'view'),
    handler: async (request: ActionRequest, _response: unknown, context: ActionContext) => {
      const actor = actorOf(context);
      const id = Number(request.query?.id);
      const asked = Number(request.query?.account_id);
      const source = id > 0 ? await guarded(() => ctx.services.sources.show(actor, id)) : null;
      const account = source?.account_id ?? targetAccount(actor, isRowId(asked) ? asked : undefined);
      const catalogue = await ctx.services.leads.activeProducts(account);
      const products = [...catalogue.values()]
        .map(({ sku, name, price }) => ({ sku, name, price }))
        .sort((a, b) => a.sku.localeCompare(b.sku));
      return {
        products,
        lines: source?.default_products ?? [],
        mapping: Object.entries(source?.product_mapping ?? {}).map(([from, to]) => ({ from, to })),
      };
    },
  };
}
