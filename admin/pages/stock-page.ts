import type { PageHandler } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { can, isSystemWide } from '../../src/policy.js';
import { formatInZone } from '../../src/time-zones.js';
import { viewerOf } from '../resources/panel-times.js';
import { idOf, pageActor, payloadOf, refusalOf } from './page-kit.js';

/**
 * What the ledger is asked for: the levels' sku and warehouse, and its own kind, order reference and page (`ledger_*`),
 * ten a page; an empty filter is none.
 */
function ledgerQuery(source: Record<string, unknown>, levels: Record<string, unknown>) {
  const query: Record<string, unknown> = { per_page: 10 };
  for (const key of ['account_id', 'sku', 'warehouse'] as const)
    if (levels[key] !== undefined) query[key] = levels[key];
  const own = { ledger_kind: 'kind', ledger_order: 'order_reference', ledger_page: 'page' } as const;
  for (const [from, to] of Object.entries(own))
    if (source[from] !== undefined && source[from] !== '') query[to] = source[from];
  return query;
}

/** The filters the page sends on to services.stock.list; other keys are left out. */
const FILTERS = ['sku', 'warehouse', 'low', 'page'] as const;
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * The Stock page (admin/components/stock-page.tsx, docs/stock.md): the levels, low ones first, with filters; the
 * latest movements of the ledger; the warehouses. A POST records an adjustment or a receipt (`op: 'adjust'`) or adds
 * a warehouse (`op: 'warehouse'`) through services.stock, whose policy and validation answer a refusal in words. The
 * session's user scopes a seller or an agent to their account; an admin picks one (`account_id`).
 */
export function stockPageHandler(ctx: AppContext): PageHandler {
  const { stock, accounts } = ctx.services;
  return async (request, _response, context) => {
    const actor = pageActor(context);
    const language = viewerOf(context).language;
    const post = request.method === 'post';
    const source: Record<string, unknown> = (post ? payloadOf(request) : request.query) ?? {};
    const accountId = idOf(source.account_id);
    const scope = accountId === undefined ? {} : { account_id: accountId };
    const extra = {
      may_adjust: can(actor, 'create', 'stock'),
      ...(isSystemWide(actor)
        ? { accounts: (await accounts.listAccounts(actor)).map(({ id, name }) => ({ id, name })) }
        : {}),
    };
    let done: Record<string, unknown> | undefined;
    let refused: Record<string, unknown> = {};
    try {
      if (post && source.op === 'adjust') {
        const movement = {
          sku: text(source.sku),
          warehouse: text(source.warehouse) || undefined,
          kind: text(source.kind) ?? 'adjustment',
          quantity: source.quantity === '' ? undefined : Number(source.quantity),
          reason: text(source.reason),
        };
        done = await stock.record(actor, { ...scope, movements: [movement] });
      } else if (post && source.op === 'warehouse') {
        const made = await stock.createWarehouse(actor, { ...scope, code: source.code, name: source.name });
        done = { warehouse: made.code };
      }
    } catch (err) {
      refused = { ...refusalOf(err, 'components.stock.nothingToShow', language) };
    }
    try {
      const query: Record<string, unknown> = { ...scope, per_page: 20 };
      for (const key of FILTERS) if (source[key] !== undefined && source[key] !== '') query[key] = source[key];
      const [levels, warehouses, movements] = await Promise.all([
        stock.list(actor, query, true),
        stock.warehouses(actor, scope),
        stock.movements(actor, ledgerQuery(source, query)),
      ]);
      // each movement's time in its account's zone, with the zone (the panel's rule: src/time-zones.ts)
      const ids = [...new Set(movements.data.map((m) => m.account_id))];
      const zones = new Map(
        (await ctx.models.Account.findAll({ where: { id: ids }, attributes: ['id', 'time_zone'] })).map((a) => [
          a.id,
          a.time_zone,
        ]),
      );
      const zone = viewerOf(context).zone;
      const ledger = movements.data.map((m) => ({
        ...m,
        when_text: formatInZone(m.created_at, zones.get(m.account_id) ?? zone, language),
      }));
      return { levels, warehouses, movements: { ...movements, data: ledger }, done, ...refused, ...extra };
    } catch (err) {
      return { ...refusalOf(err, 'components.stock.nothingToShow', language), ...extra };
    }
  };
}
