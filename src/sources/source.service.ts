import crypto from 'node:crypto';
import { newRowAccount } from '../chosen-account.js';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, ValidationError, type FieldErrors } from '../errors.js';
import { resolveLines, skuError } from '../leads/lead.check.js';
import { activeProducts } from '../leads/lead.repository.js';
import { LINE_BOUNDS, type ProductLineInput } from '../leads/lead.schemas.js';
import type { Page } from '../pagination.js';
import { deleteInBatches, isRowId } from '../query.js';
import { accountScope, authorize, namedAccountScope } from '../policy.js';
import { addError, validate } from '../validation.js';
import type { SourceLine } from './lead-source.model.js';
import {
  deleteOldIntake,
  deleteSource,
  findSource,
  insertSource,
  intakeCounts,
  intakePage,
  sourceId,
  sourcePage,
  updateSource,
  unpricedForms,
  type SourceRow,
} from './source.repository.js';
import {
  intakeListSchema,
  sourceCreateSchema,
  sourceListSchema,
  sourceUpdateSchema,
  type IntakeListInput,
  type IntakeView,
  type SourceCreateInput,
  type SourceHealth,
  type SourceListInput,
  type SourceUpdateInput,
  type SourceView,
} from './source.schemas.js';
import { sourceHealth } from './source-health.js';
import { intakeView, sourceView } from './source-views.js';

/** 144 random bits, base64url: unguessable, and fits a URL path as it is. */
export const newPublicKey = () => crypto.randomBytes(18).toString('base64url');

/** Each source's health by the one rule (sourceHealth) over its last 24 hours, by id; only `accountId`'s count. */
async function healthOf(core: Core, ids: number[], accountId: number | null): Promise<Map<number, SourceHealth>> {
  const counts = await intakeCounts(core.db.sequelize, ids, accountId);
  const unpriced = await unpricedForms(core.db.sequelize, ids, accountId, LINE_BOUNDS.price.min);
  return new Map(
    ids.map((id) => {
      const c = counts.get(id) ?? { received: 0, refused: 0 };
      return [id, sourceHealth(c.received, c.refused, !unpriced.has(id))];
    }),
  );
}

async function viewsOf(core: Core, rows: SourceRow[]): Promise<SourceView[]> {
  const health = await healthOf(
    core,
    rows.map((r) => r.id),
    null,
  );
  return rows.map((r) => sourceView(r, health.get(r.id)!, core.config.appUrl));
}

async function sourceInScope(core: Core, actor: Actor, id: unknown): Promise<SourceRow> {
  const wanted = sourceId(id);
  const row = wanted === null ? null : await findSource(core.db.sequelize, wanted, accountScope(actor).account_id);
  if (!row) throw new NotFoundError();
  return row;
}

/**
 * The default lines and the mapping's targets checked against the account's active products (the lead product
 * rules), or one 422 naming every bad one. Lines keep what was given (an absent price stays the catalogue's then).
 */
async function checkProducts(
  core: Core,
  accountId: number,
  lines: ProductLineInput[] | undefined,
  mapping: Record<string, string> | undefined,
): Promise<SourceLine[] | undefined> {
  const targets = Object.entries(mapping ?? {});
  const skus = [...new Set([...(lines ?? []).map((l) => l.sku), ...targets.map(([, sku]) => sku)])];
  if (!skus.length) return lines?.map((l) => ({ sku: l.sku, quantity: l.quantity ?? 1 }));
  const catalogue = await activeProducts(core.db.sequelize, accountId, skus);
  const errors: FieldErrors = {};
  if (lines) resolveLines(lines, catalogue, 'default_products', errors);
  for (const [key, sku] of targets) {
    const problem = skuError(sku, catalogue);
    if (problem) addError(errors, `product_mapping.${key}`, problem);
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return lines?.map((l) => ({
    sku: l.sku,
    quantity: l.quantity ?? 1,
    ...(l.price === undefined ? {} : { price: l.price }),
  }));
}

async function list(core: Core, actor: Actor, query: unknown): Promise<Page<SourceView>> {
  authorize(actor, 'viewAny', 'source');
  const q = validate<SourceListInput>(sourceListSchema, query ?? {});
  const accountId = namedAccountScope(actor, q.account_id);
  const { rows, total } = await sourcePage(core.db.sequelize, { accountId, page: q.page, perPage: q.per_page });
  return { data: await viewsOf(core, rows), total, page: q.page, perPage: q.per_page };
}

async function show(core: Core, actor: Actor, id: unknown): Promise<SourceView> {
  authorize(actor, 'view', 'source');
  const row = await sourceInScope(core, actor, id);
  authorize(actor, 'view', 'source', row);
  return (await viewsOf(core, [row]))[0];
}

async function create(core: Core, actor: Actor, body: unknown): Promise<SourceView> {
  authorize(actor, 'create', 'source');
  const v = validate<SourceCreateInput>(sourceCreateSchema, body);
  if (v.account_id !== undefined) namedAccountScope(actor, v.account_id);
  const account_id = await newRowAccount(core.db.sequelize, actor, v.account_id);
  authorize(actor, 'create', 'source', { account_id });
  const lines = await checkProducts(core, account_id, v.default_products, v.product_mapping);
  const row = await insertSource(core.db.sequelize, {
    account_id,
    kind: v.kind,
    name: v.name,
    public_key: newPublicKey(),
    signing_secret: v.signing_secret ?? null,
    allowed_origins: v.allowed_origins,
    thank_you_url: v.thank_you_url ?? null,
    default_products: lines ?? [],
    product_mapping: v.product_mapping,
    active: v.active,
    created_by: actor.name,
  });
  core.logger.info({ account_id, source_id: row.id, kind: row.kind }, 'lead source created');
  return (await viewsOf(core, [row]))[0];
}

async function update(core: Core, actor: Actor, id: unknown, body: unknown): Promise<SourceView> {
  authorize(actor, 'update', 'source');
  const row = await sourceInScope(core, actor, id);
  authorize(actor, 'update', 'source', row);
  const v = validate<SourceUpdateInput>(sourceUpdateSchema, body);
  // a form is not signed: a secret on it would suggest a check that never happens
  if (v.signing_secret !== undefined && row.kind === 'form')
    throw ValidationError.single('signing_secret', 'The signing_secret field is not allowed for a form source.');
  const lines = await checkProducts(core, row.account_id, v.default_products, v.product_mapping);
  const changed = await updateSource(core.db.sequelize, row.id, { ...v, default_products: lines });
  core.logger.info({ account_id: row.account_id, source_id: row.id }, 'lead source updated');
  return (await viewsOf(core, [changed]))[0];
}

/** Deletes a source: its intake log goes with it; its leads stay, without a source (the foreign key's SET NULL). */
async function remove(core: Core, actor: Actor, id: unknown): Promise<{ deleted: number }> {
  authorize(actor, 'delete', 'source');
  const row = await sourceInScope(core, actor, id);
  authorize(actor, 'delete', 'source', row);
  if (!(await deleteSource(core.db.sequelize, row.id, row.account_id))) throw new NotFoundError();
  core.logger.info({ account_id: row.account_id, source_id: row.id }, 'lead source deleted');
  return { deleted: 1 };
}

/** A source's intake log within the kept 30 days, newest first. */
async function intake(core: Core, actor: Actor, id: unknown, query: unknown): Promise<Page<IntakeView>> {
  authorize(actor, 'view', 'source');
  const row = await sourceInScope(core, actor, id);
  authorize(actor, 'view', 'source', row);
  const q = validate<IntakeListInput>(intakeListSchema, query ?? {});
  const { rows, total } = await intakePage(core.db.sequelize, {
    sourceId: row.id,
    outcome: q.outcome,
    page: q.page,
    perPage: q.per_page,
  });
  return { data: rows.map(intakeView), total, page: q.page, perPage: q.per_page };
}

/** Deletes every intake entry past the kept 30 days (jobs/intake-retention.job.ts); answers how many went. */
const removeOldIntake = (core: Core) => deleteInBatches((size) => deleteOldIntake(core.db.sequelize, size));

/** An account's lead sources (issue 34, docs/lead-sources.md "Sources") and their intake log. */
export function createSourceService(core: Core) {
  return {
    list: (actor: Actor, query?: unknown) => list(core, actor, query),
    show: (actor: Actor, id: unknown) => show(core, actor, id),
    create: (actor: Actor, body: unknown) => create(core, actor, body),
    update: (actor: Actor, id: unknown, body: unknown) => update(core, actor, id, body),
    remove: (actor: Actor, id: unknown) => remove(core, actor, id),
    intake: (actor: Actor, id: unknown, query?: unknown) => intake(core, actor, id, query),
    /** The health of sources a list already found in the actor's scope (the panel's list), by id. */
    health: (actor: Actor, ids: number[]) => {
      authorize(actor, 'viewAny', 'source');
      return healthOf(core, ids.filter(isRowId), accountScope(actor).account_id ?? null);
    },
    removeOldIntake: () => removeOldIntake(core),
  };
}

export type SourceService = ReturnType<typeof createSourceService>;
