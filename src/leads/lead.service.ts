import type Joi from 'joi';
import type { Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ANALYZE_WAKE_ROWS, requestAnalyze } from '../db/table-statistics.js';
import { ValidationError } from '../errors.js';
import type { Page } from '../pagination.js';
import { accountScope, authorize, targetAccount } from '../policy.js';
import { HISTORY_ORDER, LINE_ORDER, historyView, lineView } from '../record-views.js';
import { findInScope, type RowKey } from '../query.js';
import { newReferences } from '../references.js';
import { leadSourceRef, withUtmData } from './lead-origin.js';
import { validate } from '../validation.js';
import { confirmedOrders } from './lead.events.js';
import { batchCheckProbe, insertLeadBatch, type LeadOrigin } from './lead-batch.repository.js';
import { checkLeadItems, leadPhone, namedSkus, totalOf, type Catalogue, type PreparedLead } from './lead.check.js';
import type { LeadStatus } from './lead.model.js';
import { callBackDate, pastCallBack } from './call-back.js';
import { activeProducts, listLeads, phoneTaken } from './lead.repository.js';
import {
  createBodySchema,
  dashboardCreateSchema,
  dashboardListQuerySchema,
  restListQuerySchema,
  sourceLeadItemSchema,
  type DashboardCreateInput,
  type DashboardUpdateInput,
  type LeadFilters,
} from './lead.schemas.js';
import {
  applyStatusChanges,
  dashboardLines,
  deleteMany,
  noProductsMessage,
  update,
  updateStatuses,
  type StatusMove,
} from './lead-writes.js';
import { customerOfPhone } from '../customers/customer.repository.js';
import { phoneCountryOf } from '../accounts/phone-country.js';
import { newRowAccount } from '../chosen-account.js';
import { noKey, runOnce, type IdempotencyOption, type KeyGuard } from '../idempotency/idempotency.service.js';

/** What a bulk create answers: the references written, in request order. */
export type Created = { references: string[] };

export type { Catalogue, CatalogueProduct, PreparedLead } from './lead.check.js';
export { PROTECTED_LEAD_STATUSES } from './lead-writes.js';

export interface LeadListItem {
  reference: string;
  full_name: string;
  phone: string;
  city: string | null;
  status: string;
  created_at: string;
}

/** What the lead service's functions share: the core, and whether this database lets a batch check its parents. */
export interface LeadCore extends Core {
  perBatch: () => Promise<boolean>;
}

export interface InsertOptions {
  transaction: Transaction;
  accountId?: number;
  importRunId?: number;
  importRows?: number[];
  seenPhones?: string[];
  /** A lead source's lead (one per batch): its source, UTM fields and shop order id. */
  origin?: LeadOrigin;
}

/** How a caller's items are read: `productsOptional` for a lead source's item (sourceLeadItemSchema). */
export interface PrepareOptions {
  productsOptional?: boolean;
  /**
   * The account's active products the caller already read (a form's or a shop order's lines, priced from it): only
   * the skus of the items it lacks are read again.
   */
  catalogue?: Catalogue;
  /** The item schema instead of the lead's (an order's item names its warehouse: src/orders/order.schemas.ts). */
  itemSchema?: Joi.ObjectSchema;
}

/** checkLeadItems against the account's active products named by the items and its phone country. */
async function prepareLeads(
  core: Core,
  actor: Actor,
  items: unknown[],
  path = 'leads',
  accountId?: number,
  options: PrepareOptions = {},
) {
  const account = accountId ?? targetAccount(actor);
  const known = options.catalogue;
  const unread = namedSkus(items).filter((sku) => !known?.has(sku));
  const [read, country] = await Promise.all([
    activeProducts(core.db.sequelize, account, unread),
    phoneCountryOf(core, account),
  ]);
  const catalogue = known ? Object.assign(new Map([...known, ...read]), { hints: read.hints }) : read;
  const schema = options.itemSchema ?? (options.productsOptional ? sourceLeadItemSchema : undefined);
  return checkLeadItems(items, path, catalogue, country, schema);
}

/**
 * Inserts checked leads with their products and creation history in one statement (lead-batch.repository.ts), then
 * the order of every lead that arrives confirmed. With importRunId, each lead records its run and file row. Returns
 * the references of the inserted leads, in input order.
 */
async function insertLeads(core: LeadCore, actor: Actor, prepared: PreparedLead[], opts: InsertOptions) {
  if (prepared.length === 0) return [];
  const { sequelize } = core.db;
  const references = newReferences('LD', prepared.length);
  const batch = {
    accountId: opts.accountId ?? targetAccount(actor),
    userId: actorUserId(actor),
    tokenId: actor.kind === 'token' ? actor.tokenId : null,
    actorName: opts.origin?.name ?? actor.name,
    references,
    leads: withUtmData(prepared, opts.origin?.utm),
    importRunId: opts.importRunId ?? null,
    importRows: opts.importRows ?? prepared.map(() => null),
    seenPhones: opts.seenPhones ?? [],
    duplicateWindowDays: core.config.duplicateWindowDays,
    origin: opts.origin ?? null,
  };
  // every lead is written or the statement fails: the references are the ones written
  const confirmed = await insertLeadBatch(sequelize, opts.transaction, batch, await core.perBatch());
  await confirmedOrders(core, opts.transaction, actor, confirmed);
  // a bulk request has the tables analyzed after its commit; an import analyzes them itself at its end
  if (prepared.length >= ANALYZE_WAKE_ROWS && !opts.importRunId) await requestAnalyze(sequelize, opts.transaction);
  return references;
}

/**
 * REST bulk create: ≤ 1,000 items, atomic (any invalid item or sku rejects the whole request), references in order.
 */
async function createMany(
  core: LeadCore,
  actor: Actor,
  body: unknown,
  guard: KeyGuard<Created> = noKey,
): Promise<Created> {
  authorize(actor, 'create', 'lead');
  const { leads } = validate<{ leads: unknown[] }>(createBodySchema('leads'), body);
  const { prepared, errors } = await prepareLeads(core, actor, leads);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  // the key is taken before the leads are written: a second request with it waits here, then replays
  const references = await core.db.sequelize.transaction(async (transaction) => {
    await guard.take(transaction);
    const written = await insertLeads(core, actor, prepared as PreparedLead[], { transaction });
    await guard.keep(transaction, { references: written });
    return written;
  });
  core.logger.info({ account_id: actor.accountId, created: references.length }, 'leads created');
  return { references };
}

/**
 * Dashboard create: `name` is the phone, unique in the account; the initial status is chosen by the user, except for
 * an uncallable phone (created `wrong` by the system).
 */
async function createOne(core: LeadCore, actor: Actor, input: DashboardCreateInput) {
  authorize(actor, 'create', 'lead');
  const v = validate<DashboardCreateInput>(dashboardCreateSchema, input);
  pastCallBack([v], () => 'action_date');
  const accountId = await newRowAccount(core.db.sequelize, actor, v.account_id);
  authorize(actor, 'create', 'lead', { account_id: accountId });
  const country = await phoneCountryOf(core, accountId);
  // an uncallable phone is created `wrong` (leadPhone); without an E.164 form it is never "taken"
  const phone = leadPhone(v.name, country, v.status as LeadStatus);
  if (phone.phone_normalized && (await phoneTaken(core.db.sequelize, accountId, phone.phone_normalized))) {
    throw ValidationError.single('name', 'The name has already been taken.');
  }
  const city = v.city_id ? await core.models.City.findByPk(v.city_id) : null;
  if (v.city_id && !city) throw ValidationError.single('city_id', 'The selected city_id is invalid.');
  const products = v.products ? await dashboardLines(core, accountId, v.products) : [];
  // an uncallable phone makes the lead `wrong` whatever was asked: only a lead still to be confirmed needs products
  if (phone.status === 'confirmed' && !products.length) throw ValidationError.single('status', noProductsMessage());
  const lead: PreparedLead = {
    ...phone,
    full_name: v.full_name ?? v.name,
    city: city?.name ?? null,
    city_id: city?.id ?? null,
    area: v.area ?? null,
    address: v.address ?? null,
    data: [],
    products,
    total: totalOf(products),
    action_date: v.action_date ? callBackDate(v.action_date) : null,
  };
  const [reference] = await core.db.sequelize.transaction((transaction) =>
    insertLeads(core, actor, [lead], { transaction, accountId }),
  );
  return show(core, actor, { reference });
}

type ListQuery = LeadFilters & { page: number; perPage: number };

/**
 * One page of leads, newest first. The REST list takes the spec's page, per_page, search_by and keyWord (other keys
 * are dropped); the dashboard's also its filters, and refuses unknown keys. `query` is the validated query.
 */
async function list(
  core: Core,
  actor: Actor,
  raw: unknown,
  shape: 'rest' | 'dashboard',
): Promise<Page<LeadListItem & { id: number; account_id: number }> & { query: ListQuery }> {
  authorize(actor, 'viewAny', 'lead');
  const query: ListQuery =
    shape === 'rest'
      ? (({ per_page, ...q }) => ({ ...q, perPage: per_page }))(
          validate<LeadFilters & { page: number; per_page: number }>(restListQuerySchema, raw, {
            allowUnknown: true,
            stripUnknown: true,
          }),
        )
      : validate<ListQuery>(dashboardListQuerySchema, raw);
  const country = (accountId?: number) => phoneCountryOf(core, accountId);
  if (query.search_by === 'phone' || query.search)
    query.phone_country = await country(accountScope(actor, query.account_id).account_id);
  const { rows, total, totalExact } = await listLeads(core.db.sequelize, actor, query, query.page, query.perPage);
  const data = rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
  return { data, total, totalExact, page: query.page, perPage: query.perPage, query };
}

/**
 * The full lead: list fields, contact details, data, products, total, order reference, the status history and the
 * customer record of its phone (null without an E.164 phone).
 */
async function show(core: Core, actor: Actor, key: { reference: string } | { id: number }) {
  authorize(actor, 'view', 'lead');
  const { Lead, LeadProduct, LeadHistory, Order } = core.models;
  const lead = await findInScope(Lead, actor, key);
  const [products, history, order, customer, source] = await Promise.all([
    LeadProduct.findAll({ where: { lead_id: lead.id }, order: LINE_ORDER }),
    LeadHistory.findAll({ where: { lead_id: lead.id }, order: HISTORY_ORDER }),
    Order.findOne({
      where: { account_id: lead.account_id, lead_reference: lead.reference },
      attributes: ['reference'],
    }),
    customerOfPhone(core.db.sequelize, lead.account_id, lead.phone_normalized),
    leadSourceRef(core.db.sequelize, lead.account_id, lead.source_id),
  ]);
  return {
    id: lead.id,
    account_id: lead.account_id,
    reference: lead.reference,
    full_name: lead.full_name,
    phone: lead.phone,
    city: lead.city,
    status: lead.status,
    created_at: lead.created_at.toISOString(),
    city_id: lead.city_id,
    area: lead.area,
    address: lead.address,
    action_date: lead.action_date?.toISOString() ?? null,
    updated_at: lead.updated_at.toISOString(),
    data: lead.data,
    products: products.map(lineView),
    total: Number(lead.total),
    order_reference: order?.reference ?? null,
    history: history.map((h) => ({ lead_reference: h.lead_reference, ...historyView(h), note: h.note ?? null })),
    customer,
    source,
    utm: lead.utm ?? null,
  };
}

export function createLeadService(base: Core) {
  const core: LeadCore = { ...base, perBatch: batchCheckProbe(base.db.sequelize, base.config.leadParentChecks) };
  type Key = { reference: string } | { id: number };
  return {
    prepareLeads: (actor: Actor, items: unknown[], path?: string, accountId?: number, options?: PrepareOptions) =>
      prepareLeads(core, actor, items, path, accountId, options),
    activeProducts: (accountId: number, skus?: string[]) => activeProducts(core.db.sequelize, accountId, skus),
    insertLeads: (actor: Actor, prepared: PreparedLead[], opts: InsertOptions) =>
      insertLeads(core, actor, prepared, opts),
    createMany: (actor: Actor, body: unknown) => createMany(core, actor, body),
    /** createMany at most once per Idempotency-Key (docs/api.md "Idempotent requests"). */
    createManyOnce: async (actor: Actor, body: unknown, once: IdempotencyOption<Created>) => {
      authorize(actor, 'create', 'lead');
      return runOnce(core.db.sequelize, targetAccount(actor), once, (guard) => createMany(core, actor, body, guard));
    },
    createOne: (actor: Actor, input: DashboardCreateInput) => createOne(core, actor, input),
    list: (actor: Actor, query: unknown, shape: 'rest' | 'dashboard') => list(core, actor, query, shape),
    show: (actor: Actor, key: Key) => show(core, actor, key),
    updateStatuses: (actor: Actor, body: unknown) => updateStatuses(core, actor, body),
    /** Status moves inside the caller's transaction, as every entry point writes them (the work queue's outcomes). */
    applyStatusChanges: (actor: Actor, transaction: Transaction, moves: StatusMove[]) =>
      applyStatusChanges(core, actor, transaction, moves),
    /** Dashboard edit of one lead; answers the lead as `show` does. */
    update: async (actor: Actor, id: number, input: DashboardUpdateInput) =>
      show(core, actor, { id: await update(core, actor, id, input) }),
    deleteMany: (actor: Actor, body: unknown, by: RowKey = 'references') => deleteMany(core, actor, body, by),
  };
}

export type LeadService = ReturnType<typeof createLeadService>;
