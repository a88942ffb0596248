import type { Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ValidationError, type FieldErrors } from '../errors.js';
import { insertHistory } from '../histories/history.repository.js';
import { confirmedOrders, type ConfirmedOrder } from './lead.events.js';
import { accountScope, authorize } from '../policy.js';
import { lockByKeys, findInScope, type RowKey } from '../query.js';
import { addError, validate } from '../validation.js';
import {
  deleteLeads,
  blockedLeads,
  LEAD_LOCK,
  lockLeadStatus,
  phoneTaken,
  setLeadStatuses,
  type LeadStatusChange,
} from './lead.repository.js';
import {
  dashboardUpdateSchema,
  deleteBodySchema,
  deleteIdsSchema,
  updateBodySchema,
  type DashboardUpdateInput,
  type ProductLineInput,
  type StatusChangeInput,
} from './lead.schemas.js';
import { keepPhone } from '../phone.js';
import { callBackDate, pastCallBack } from './call-back.js';
import { BLOCKED_NOTE } from './lead-batch.repository.js';
import { leadsWithoutProducts, replaceLeadProducts } from './lead-products.repository.js';
import { resolveLines, totalOf } from './lead.check.js';
import { activeProducts } from './lead.repository.js';
import { phoneCountryOf } from '../accounts/phone-country.js';

/** The protected status of decisions.md: such a lead cannot be deleted. */
export const PROTECTED_LEAD_STATUSES: readonly string[] = ['confirmed'];

/** One lead's move from `old`, with the actor's note when there is one (the work queue's outcomes). */
export type StatusMove = LeadStatusChange & {
  reference: string;
  account_id: number;
  old: string;
  note?: string | null;
};

/** The refusal of confirming a lead without products (docs/decisions.md, "Product lines"). */
export const noProductsMessage = (reference?: string) =>
  `A lead without products cannot be confirmed: add a product${reference ? ` to ${reference}` : ''} first.`;

/** The refusal of confirming a lead whose phone its account blocked (docs/decisions.md, "Blocklist"). */
export const blockedMessage = (reference?: string) =>
  `A lead whose phone is blocked cannot be confirmed${reference ? ` (${reference})` : ''}: unblock the phone first.`;

/**
 * Moves leads to new statuses in the caller's transaction, the one write path of every entry point (REST, dashboard,
 * panel, work queue): history for every real change (same status again only updates action_date, unless it carries
 * a note, which is kept as an entry of its own), and the order of every newly confirmed lead. Confirming a lead
 * without products is refused (422 under `pathOf(i)`, every change refused with it). Answers the orders it created.
 */
export async function applyStatusChanges(
  core: Core,
  actor: Actor,
  transaction: Transaction,
  changes: StatusMove[],
  pathOf: (i: number) => string = () => 'status',
): Promise<ConfirmedOrder[]> {
  if (changes.length === 0) return [];
  const { sequelize } = core.db;
  const confirming = (c: StatusMove) => c.old !== c.status && c.status === 'confirmed';
  const empty = await leadsWithoutProducts(
    sequelize,
    transaction,
    changes.filter(confirming).map((c) => c.id),
  );
  // a lead whose phone the account blocked is never confirmed (its order would be pushable): a phone changed to a
  // blocked one since its creation, or blocked after it
  const blocked = await blockedLeads(
    sequelize,
    transaction,
    changes.filter(confirming).map((c) => c.id),
  );
  if (empty.size || blocked.size) {
    const errors: FieldErrors = {};
    changes.forEach((c, i) => {
      if (confirming(c) && empty.has(c.id)) addError(errors, pathOf(i), noProductsMessage(c.reference));
      if (confirming(c) && blocked.has(c.id)) addError(errors, pathOf(i), blockedMessage(c.reference));
    });
    throw new ValidationError(errors);
  }
  await setLeadStatuses(sequelize, transaction, changes, actorUserId(actor));
  const written = changes.filter((c) => c.old !== c.status || c.note);
  await insertHistory(sequelize, transaction, 'lead', written, actor);
  const confirmed = changes.filter((c) => c.old !== c.status && c.status === 'confirmed').map((c) => c.id);
  return confirmedOrders(core, transaction, actor, confirmed);
}

/** The dashboard's (and panel's) product lines resolved against the account's catalogue, or a 422. */
export async function dashboardLines(core: Core, accountId: number, lines: ProductLineInput[]) {
  const catalogue = await activeProducts(core.db.sequelize, accountId, [...new Set(lines.map((l) => l.sku))]);
  const errors: FieldErrors = {};
  const resolved = resolveLines(lines, catalogue, 'products', errors);
  if (!resolved) throw new ValidationError(errors);
  return resolved;
}

const dateOrNull = (d?: string | null) => (d ? callBackDate(d) : null);

/** What a bulk status update did: how many leads, and the orders their confirmations created (lead reference first). */
export interface StatusUpdateResult {
  updated: number;
  orders: { reference: string; order_reference: string }[];
}

/**
 * REST bulk status update: atomic; an unknown (or another account's) reference rejects the whole request. Answers the
 * orders the request's confirmations created, in request order.
 */
export async function updateStatuses(core: Core, actor: Actor, body: unknown): Promise<StatusUpdateResult> {
  authorize(actor, 'update', 'lead');
  const { leads } = validate<{ leads: StatusChangeInput[] }>(updateBodySchema, body);
  pastCallBack(leads, (i) => `leads.${i}.action_date`);
  const { sequelize } = core.db;
  const result = await sequelize.transaction(async (transaction) => {
    const refs = leads.map((l) => l.reference.toUpperCase());
    const path = (i: number) => `leads.${i}.reference`;
    const scope = accountScope(actor).account_id;
    const { byKey, errors: unknown } = await lockByKeys(sequelize, transaction, LEAD_LOCK, {
      by: 'references',
      keys: refs,
      accountId: scope,
      path,
    });
    // in request order: the first error names the summary message
    const errors: FieldErrors = {};
    refs.forEach((r, i) => {
      if (unknown[path(i)]) errors[path(i)] = unknown[path(i)];
      else if (refs.indexOf(r) < i) addError(errors, path(i), `The ${path(i)} field has a duplicate value.`);
    });
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const moves = leads.map((l, i) => {
      const row = byKey.get(refs[i])!;
      return { ...row, old: row.status, status: l.status, action_date: dateOrNull(l.action_date) };
    });
    const created = await applyStatusChanges(core, actor, transaction, moves, (i) => `leads.${i}.status`);
    const orderOf = new Map(created.map((o) => [o.lead_reference, o.reference]));
    const orders = refs.filter((r) => orderOf.has(r)).map((r) => ({ reference: r, order_reference: orderOf.get(r)! }));
    return { updated: leads.length, orders };
  });
  core.logger.info({ account_id: actor.accountId, updated: result.updated }, 'lead statuses changed');
  return result;
}

/**
 * Dashboard edit of one lead (status, name, phone, city); a status change writes history like every entry point. A
 * phone changed to an uncallable one is kept as typed without an E.164 form and changes no status (docs/decisions.md,
 * "Phones"). Answers the lead's id.
 */
export async function update(core: Core, actor: Actor, id: number, input: DashboardUpdateInput): Promise<number> {
  authorize(actor, 'update', 'lead');
  const v = validate<DashboardUpdateInput>(dashboardUpdateSchema, input);
  const { sequelize } = core.db;
  const { models } = core;
  const lead = await findInScope(models.Lead, actor, { id });
  authorize(actor, 'update', 'lead', lead);
  pastCallBack([v], () => 'action_date', lead.action_date);
  const country = await phoneCountryOf(core, lead.account_id);
  // an uncallable phone is stored as typed without an E.164 form; the status stays the one the form sends
  const { phone, phone_normalized } = keepPhone(v.phone, country);
  const changed = phone_normalized !== lead.phone_normalized;
  if (phone_normalized && changed && (await phoneTaken(sequelize, lead.account_id, phone_normalized))) {
    throw ValidationError.single('phone', 'The phone has already been taken.');
  }
  const cityId = v.city_id ? Number(v.city_id) : null;
  const city = cityId ? await models.City.findByPk(cityId) : null;
  if (cityId && !city) throw ValidationError.single('city_id', 'The selected city_id is invalid.');
  const lines = v.products && (await dashboardLines(core, lead.account_id, v.products));
  await sequelize.transaction(async (transaction) => {
    const old = await lockLeadStatus(sequelize, transaction, lead.id);
    if (lines) await replaceLeadProducts(sequelize, transaction, lead, lines, totalOf(lines));
    const fields = {
      full_name: v.full_name,
      phone,
      phone_normalized,
      // Only a changed city_id rewrites the city: a form that sends the same (or no) city_id keeps a free-text city.
      ...(v.city_id !== undefined && cityId !== lead.city_id
        ? { city_id: city?.id ?? null, city: city?.name ?? null }
        : {}),
      ...(v.area !== undefined ? { area: v.area || null } : {}),
      ...(v.address !== undefined ? { address: v.address || null } : {}),
    };
    await models.Lead.update(fields, { where: { id: lead.id }, transaction });
    const { reference, account_id } = lead;
    // a phone changed to one the account blocked cancels the lead, as a new lead from it is (whatever was asked)
    // (a confirmed lead keeps its status: its order exists, and confirmed is kept from every move)
    const block =
      changed && old !== 'confirmed' ? (await blockedLeads(sequelize, transaction, [lead.id])).get(lead.id) : undefined;
    const move = {
      id: lead.id,
      reference,
      account_id,
      old,
      status: block !== undefined ? 'canceled' : v.status,
      action_date: dateOrNull(v.action_date),
      ...(block !== undefined ? { note: `${BLOCKED_NOTE}${block}`.slice(0, 500) } : {}),
    };
    await applyStatusChanges(core, actor, transaction, [move]);
  });
  return lead.id;
}

/**
 * Deletes leads by reference (REST) or id (dashboard), with their products and history. Atomic: an unknown lead or
 * one with a protected status rejects the whole request and nothing is deleted.
 */
export async function deleteMany(core: Core, actor: Actor, body: unknown, by: RowKey): Promise<{ deleted: number }> {
  authorize(actor, 'delete', 'lead');
  const keys =
    by === 'references'
      ? validate<{ references: string[] }>(deleteBodySchema, body).references.map((r) => r.toUpperCase())
      : validate<{ ids: number[] }>(deleteIdsSchema, body).ids;
  const { sequelize } = core.db;
  const result = await sequelize.transaction(async (transaction) => {
    const path = (i: number) => `${by}.${i}`;
    const scope = accountScope(actor).account_id;
    const { byKey, errors } = await lockByKeys(sequelize, transaction, LEAD_LOCK, {
      by,
      keys,
      accountId: scope,
      path,
    });
    keys.forEach((k, i) => {
      const lead = byKey.get(String(k));
      if (lead && PROTECTED_LEAD_STATUSES.includes(lead.status)) {
        const message = `The lead ${lead.reference} has the protected status ${lead.status} and cannot be deleted.`;
        addError(errors, path(i), message);
      }
    });
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const ids = [...new Set([...byKey.values()].map((l) => l.id))];
    await deleteLeads(sequelize, transaction, ids);
    return { deleted: ids.length };
  });
  core.logger.info({ account_id: actor.accountId, ...result }, 'leads deleted');
  return result;
}
