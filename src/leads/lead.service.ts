import { QueryTypes, type Transaction } from 'sequelize';
import { actorUserId, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ConflictError, ValidationError, type FieldErrors } from '../errors.js';
import { insertHistory } from '../histories/history.repository.js';
import { createOrdersFromLeads } from '../orders/from-leads.js';
import type { Page } from '../pagination.js';
import { accountScope, authorize, isSystemWide } from '../policy.js';
import { findInScope } from '../query.js';
import { listLeads } from './lead.repository.js';
import { newReferences } from '../references.js';
import { addError, validate } from '../validation.js';
import type { LeadStatus } from './lead.model.js';
import {
  createBodySchema,
  dashboardCreateSchema,
  dashboardUpdateSchema,
  deleteBodySchema,
  deleteIdsSchema,
  updateBodySchema,
  type DashboardCreateInput,
  type DashboardUpdateInput,
  type LeadFilters,
  type StatusChangeInput,
} from './lead.schemas.js';
import { checkLeadItems, namedSkus, type Catalogue, type CatalogueProduct, type PreparedLead } from './lead.check.js';
import { normalizePhone } from './phone.js';

export type { Catalogue, CatalogueProduct, PreparedLead } from './lead.check.js';

export interface LeadListItem {
  reference: string;
  full_name: string;
  phone: string;
  city: string | null;
  status: string;
  created_at: string;
}

/** The protected status of decisions.md: such a lead cannot be deleted. */
export const PROTECTED_LEAD_STATUSES: readonly string[] = ['confirmed'];

export function createLeadService(core: Core) {
  const { sequelize } = core.db;
  const { Lead, LeadProduct, LeadHistory, Order, City } = core.models;

  /** Tenant that new rows belong to: the actor's, or for an admin the account named in the input. */
  function targetAccount(actor: Actor, requested?: number): number {
    const id = isSystemWide(actor) ? (requested ?? actor.accountId) : actor.accountId;
    if (!id) throw ValidationError.single('account_id', 'The account_id field is required.');
    return id;
  }

  function select<T extends object>(sql: string, bind: unknown[], transaction?: Transaction) {
    return sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
  }

  /** The account's active products by sku (those named, or all of them). */
  async function activeProducts(accountId: number, skus?: string[]): Promise<Catalogue> {
    if (skus && skus.length === 0) return new Map();
    const products = await select<CatalogueProduct>(
      `SELECT id, sku, name, price::float8 AS price FROM products
        WHERE account_id = $1 AND active${skus ? ' AND sku = ANY($2::text[])' : ''}`,
      skus ? [accountId, skus] : [accountId],
    );
    return new Map(products.map((p) => [p.sku, p]));
  }

  /** checkLeadItems against the account's active products named by the items (one query). */
  async function prepareLeads(actor: Actor, items: unknown[], path = 'leads', accountId = targetAccount(actor)) {
    return checkLeadItems(items, path, await activeProducts(accountId, namedSkus(items)));
  }

  /**
   * Parent checks per batch: with `LEAD_PARENT_CHECKS=batch` (the default) and a role allowed to set
   * session_replication_role (a superuser, as on the embedded server, or `GRANT SET ON PARAMETER
   * session_replication_role` on PostgreSQL 15+), insertLeads locks and counts the parents of a whole batch once and
   * inserts with the per-row foreign-key triggers off; otherwise PostgreSQL checks every row. Probed once.
   */
  let batchChecks: Promise<boolean> | null = null;
  const mayCheckPerBatch = () =>
    (batchChecks ??=
      core.config.leadParentChecks === 'row'
        ? Promise.resolve(false)
        : sequelize
            .transaction((t) => sequelize.query('SET LOCAL session_replication_role = replica', { transaction: t }))
            .then(
              () => true,
              (err) => {
                // only a refusal (insufficient_privilege) is an answer; any other failure is asked again next time
                if ((err as { original?: { code?: string } }).original?.code !== '42501') batchChecks = null;
                return false;
              },
            ));

  /**
   * What the foreign keys of leads, lead_products and lead_histories check row by row, once for a batch: each parent
   * row the batch points at is locked FOR KEY SHARE until commit (so it cannot go away before the batch is visible to
   * its ON DELETE actions) and must exist. A lead's products and history point at leads of the same statement.
   */
  async function lockParents(
    transaction: Transaction,
    p: {
      account: number;
      user: number | null;
      token: number | null;
      importRun: number | null;
      products: number[];
      cities: number[];
    },
  ) {
    const found = await select<{ kind: string; n: number }>(
      `WITH a AS (SELECT 'account'::text AS kind FROM accounts WHERE id = $1 FOR KEY SHARE),
            u AS (SELECT 'user'::text FROM users WHERE id = $2 FOR KEY SHARE),
            t AS (SELECT 'token'::text FROM api_tokens WHERE id = $3 FOR KEY SHARE),
            r AS (SELECT 'import run'::text FROM import_runs WHERE id = $4 FOR KEY SHARE),
            p AS (SELECT 'product'::text FROM products WHERE id = ANY($5::int[]) FOR KEY SHARE),
            c AS (SELECT 'city'::text FROM cities WHERE id = ANY($6::int[]) FOR KEY SHARE)
       SELECT kind, count(*)::int AS n FROM (TABLE a UNION ALL TABLE u UNION ALL TABLE t UNION ALL TABLE r UNION
         ALL TABLE p UNION ALL TABLE c) x
        GROUP BY kind`,
      [p.account, p.user, p.token, p.importRun, p.products, p.cities],
      transaction,
    );
    const n = new Map(found.map((f) => [f.kind, f.n]));
    const expected: [string, number][] = [
      ['account', 1],
      ['user', p.user ? 1 : 0],
      ['token', p.token ? 1 : 0],
      ['import run', p.importRun ? 1 : 0],
      ['product', p.products.length],
      ['city', p.cities.length],
    ];
    for (const [kind, want] of expected) {
      if ((n.get(kind) ?? 0) !== want)
        throw new ConflictError(`A ${kind} these leads refer to no longer exists; nothing was written.`);
    }
  }

  /**
   * Set-based insert of leads, their products and creation history in one statement (one round trip, whatever the
   * count). A phone seen in the account within the duplicate window (or earlier in the same batch) makes the lead
   * `duplicate`, recorded by `system`; so does one of `seenPhones` (rows of the same import still being written by
   * another transaction). With importRunId, each lead records its run and file row; a unique index refuses the same
   * row twice. Returns the references of the inserted leads, in input order.
   */
  async function insertLeads(
    actor: Actor,
    prepared: PreparedLead[],
    opts: {
      transaction: Transaction;
      accountId?: number;
      importRunId?: number;
      importRows?: number[];
      seenPhones?: string[];
    },
  ): Promise<string[]> {
    if (prepared.length === 0) return [];
    const transaction = opts.transaction;
    const accountId = opts.accountId ?? targetAccount(actor);
    const refs = newReferences('LD', prepared.length);
    const col = <K extends keyof PreparedLead>(k: K) => prepared.map((l) => l[k] ?? null);
    const lp = {
      ref: [] as string[],
      product: [] as number[],
      sku: [] as string[],
      name: [] as string[],
      qty: [] as number[],
      price: [] as number[],
      pos: [] as number[],
    };
    prepared.forEach((l, i) =>
      l.products.forEach((p, j) => {
        lp.ref.push(refs[i]);
        lp.product.push(p.product_id);
        lp.sku.push(p.sku);
        lp.name.push(p.name);
        lp.qty.push(p.quantity);
        lp.price.push(p.price);
        lp.pos.push(j);
      }),
    );
    const userId = actorUserId(actor);
    const tokenId = actor.kind === 'token' ? actor.tokenId : null;
    const perBatch = await mayCheckPerBatch();
    if (perBatch) {
      await lockParents(transaction, {
        account: accountId,
        user: userId,
        token: tokenId,
        importRun: opts.importRunId ?? null,
        products: [...new Set(lp.product)],
        cities: [...new Set(prepared.flatMap((l) => (l.city_id ? [l.city_id] : [])))],
      });
    }
    // unnest's row estimates put a big batch's statement over jit_above_cost on servers built with JIT, and compiling
    // it (≈ 80 ms for 5,000 leads) costs more than running it. Bitmap scans are off for the statement because the only
    // thing they could serve in it is the duplicate check through a trigram GIN index (pg_trgm answers equality too):
    // PostgreSQL 15, once its statistics give the account some thousands of leads, probed leads_phone_trgm_idx once
    // per phone, ≈ 15 ms each (78 s for a 5,000-lead batch), where leads_account_phone_idx takes microseconds.
    // SET LOCAL ends with the transaction; both settings that change what else runs are set back right after the
    // insert, so nothing else in the transaction runs without triggers or bitmap scans. Set whatever the batch size,
    // so the statement count does not depend on it.
    await sequelize.query(
      'SET LOCAL jit = off; SET LOCAL enable_bitmapscan = off' +
        (perBatch ? '; SET LOCAL session_replication_role = replica' : ''),
      { transaction },
    );
    const rows = await select<{ id: number; reference: string; status: string }>(
      `WITH v AS (
         SELECT * FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::text[],
           $12::text[],
                              $13::text[], $14::text[], $15::timestamptz[], $16::numeric[], $17::int[])
           WITH ORDINALITY AS v(reference, phone, phone_normalized, full_name, city, city_id, area, address, data,
             status, action_date, total, import_row, ord)
       ), earlier AS (
         SELECT DISTINCT phone_normalized FROM leads
          WHERE account_id = $1 AND phone_normalized IN (SELECT phone_normalized FROM v)
            AND created_at >= now() - make_interval(days => $18)
         UNION SELECT unnest($27::text[])
       ), s AS (
         SELECT v.*, CASE WHEN $18 > 0 AND (e.phone_normalized IS NOT NULL OR row_number() OVER (PARTITION BY
           v.phone_normalized ORDER BY v.ord) > 1)
                          THEN 'duplicate' ELSE coalesce(v.status, 'new') END AS final_status
           FROM v LEFT JOIN earlier e USING (phone_normalized)
       ), ins AS (
         INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, city_id, area,
           address, data, status,
                            action_date, total, created_by_user_id, created_by_token_id, import_run_id, import_row)
         SELECT $1, s.reference, s.phone, s.phone_normalized, s.full_name, s.city, s.city_id, s.area, s.address,
           s.data::jsonb,
                s.final_status, s.action_date, s.total, $2, $3, $4, s.import_row
           FROM s ORDER BY s.ord
         RETURNING id, reference, status
       ), products AS (
         INSERT INTO lead_products (account_id, lead_id, product_id, sku, name, quantity, price, position)
         SELECT $1, ins.id, x.product_id, x.sku, x.name, x.quantity, x.price, x.position
           FROM unnest($19::text[], $20::int[], $21::text[], $22::text[], $23::int[], $24::numeric[], $25::smallint[])
                AS x(reference, product_id, sku, name, quantity, price, position)
           JOIN ins ON ins.reference = x.reference
       ), history AS (
         INSERT INTO lead_histories (account_id, lead_id, lead_reference, old_status, new_status, changed_by,
           changed_by_user_id)
         SELECT $1, ins.id, ins.reference, NULL, ins.status,
                CASE WHEN ins.status = 'duplicate' THEN 'system' ELSE $26 END, CASE WHEN ins.status = 'duplicate'
                  THEN NULL ELSE $2::int END
           FROM ins
       )
       SELECT id, reference, status FROM ins`,
      [
        accountId,
        userId,
        tokenId,
        opts.importRunId ?? null,
        refs,
        col('phone'),
        col('phone_normalized'),
        col('full_name'),
        col('city'),
        col('city_id'),
        col('area'),
        col('address'),
        prepared.map((l) => JSON.stringify(l.data)),
        col('status'),
        col('action_date'),
        col('total'),
        opts.importRows ?? prepared.map(() => null),
        core.config.duplicateWindowDays,
        lp.ref,
        lp.product,
        lp.sku,
        lp.name,
        lp.qty,
        lp.price,
        lp.pos,
        actor.name,
        opts.seenPhones ?? [],
      ],
      transaction,
    );
    await sequelize.query(
      `SET LOCAL enable_bitmapscan TO DEFAULT${perBatch ? '; SET LOCAL session_replication_role = origin' : ''}`,
      { transaction },
    );
    const byRef = new Map(rows.map((r) => [r.reference, r]));
    const inserted = refs.filter((r) => byRef.has(r));
    await createOrdersFromLeads(
      sequelize,
      transaction,
      actor,
      inserted.filter((r) => byRef.get(r)!.status === 'confirmed').map((r) => byRef.get(r)!.id),
    );
    return inserted;
  }

  /**
   * Moves leads to new statuses in one transaction: history for every real change (same status again only updates
   * action_date), and the order of every newly confirmed lead.
   */
  async function applyStatusChanges(
    actor: Actor,
    transaction: Transaction,
    changes: {
      id: number;
      reference: string;
      account_id: number;
      old: string;
      status: string;
      action_date: Date | null;
    }[],
  ) {
    if (changes.length === 0) return;
    await sequelize.query(
      `UPDATE leads l SET status = v.status, action_date = COALESCE(v.action_date, l.action_date), updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, status, action_date) WHERE l.id = v.id`,
      {
        bind: [changes.map((c) => c.id), changes.map((c) => c.status), changes.map((c) => c.action_date)],
        transaction,
      },
    );
    const moved = changes.filter((c) => c.old !== c.status);
    await insertHistory(sequelize, transaction, 'lead', moved, actor);
    await createOrdersFromLeads(
      sequelize,
      transaction,
      actor,
      moved.filter((c) => c.status === 'confirmed').map((c) => c.id),
    );
  }

  const findOne = (actor: Actor, key: { reference: string } | { id: number }) => findInScope(Lead, actor, key);

  return {
    prepareLeads,
    activeProducts,
    insertLeads,

    /**
     * REST bulk create: ≤ 1,000 items, atomic (any invalid item or sku rejects the whole request), references in order.
     */
    async createMany(actor: Actor, body: unknown): Promise<{ references: string[] }> {
      authorize(actor, 'create', 'lead');
      const { leads } = validate<{ leads: unknown[] }>(createBodySchema('leads'), body);
      const { prepared, errors } = await prepareLeads(actor, leads);
      if (Object.keys(errors).length) throw new ValidationError(errors);
      const references = await sequelize.transaction((transaction) =>
        insertLeads(actor, prepared as PreparedLead[], { transaction }),
      );
      core.logger.info({ account_id: actor.accountId, created: references.length }, 'leads created');
      return { references };
    },

    /** Dashboard create: `name` is the phone, unique in the account; the initial status is chosen by the user. */
    async createOne(actor: Actor, input: DashboardCreateInput) {
      authorize(actor, 'create', 'lead');
      const v = validate<DashboardCreateInput>(dashboardCreateSchema, input);
      const accountId = targetAccount(actor, v.account_id);
      authorize(actor, 'create', 'lead', { account_id: accountId });
      const phone_normalized = normalizePhone(v.name);
      if (await Lead.findOne({ where: { account_id: accountId, phone_normalized } })) {
        throw ValidationError.single('name', 'The name has already been taken.');
      }
      const city = v.city_id ? await City.findByPk(v.city_id) : null;
      if (v.city_id && !city) throw ValidationError.single('city_id', 'The selected city_id is invalid.');
      const [reference] = await sequelize.transaction((transaction) =>
        insertLeads(
          actor,
          [
            {
              phone: v.name,
              phone_normalized,
              full_name: v.full_name ?? v.name,
              city: city?.name ?? null,
              city_id: city?.id ?? null,
              area: v.area ?? null,
              address: v.address ?? null,
              data: [],
              products: [],
              total: 0,
              status: v.status as LeadStatus,
              action_date: v.action_date ? new Date(v.action_date) : null,
            },
          ],
          { transaction, accountId },
        ),
      );
      return this.show(actor, { reference });
    },

    /** One page of leads, newest first, with the spec's search and the dashboard's filters. */
    async list(
      actor: Actor,
      f: LeadFilters & { page: number; perPage: number },
    ): Promise<Page<LeadListItem & { id: number; account_id: number }>> {
      authorize(actor, 'viewAny', 'lead');
      const { rows, total } = await listLeads(sequelize, actor, f, f.page, f.perPage);
      return {
        data: rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() })),
        total,
        page: f.page,
        perPage: f.perPage,
      };
    },

    /** The full lead: list fields, contact details, data, products, total, order reference and the status history. */
    async show(actor: Actor, key: { reference: string } | { id: number }) {
      authorize(actor, 'view', 'lead');
      const lead = await findOne(actor, key);
      const [products, history, order] = await Promise.all([
        LeadProduct.findAll({
          where: { lead_id: lead.id },
          order: [
            ['position', 'ASC'],
            ['id', 'ASC'],
          ],
        }),
        LeadHistory.findAll({
          where: { lead_id: lead.id },
          order: [
            ['changed_at', 'ASC'],
            ['id', 'ASC'],
          ],
        }),
        Order.findOne({
          where: { account_id: lead.account_id, lead_reference: lead.reference },
          attributes: ['reference'],
        }),
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
        products: products.map((p) => ({ sku: p.sku, name: p.name, quantity: p.quantity, price: Number(p.price) })),
        total: Number(lead.total),
        order_reference: order?.reference ?? null,
        history: history.map((h) => ({
          lead_reference: h.lead_reference,
          old_status: h.old_status,
          new_status: h.new_status,
          changed_by: h.changed_by,
          changed_at: h.changed_at.toISOString(),
        })),
      };
    },

    /** REST bulk status update: atomic; an unknown (or another account's) reference rejects the whole request. */
    async updateStatuses(actor: Actor, body: unknown): Promise<{ updated: number }> {
      authorize(actor, 'update', 'lead');
      const { leads } = validate<{ leads: StatusChangeInput[] }>(updateBodySchema, body);
      return sequelize
        .transaction(async (transaction) => {
          const refs = leads.map((l) => l.reference.toUpperCase());
          const found = await select<{ id: number; reference: string; account_id: number; status: string }>(
            `SELECT id, reference, account_id, status FROM leads WHERE account_id = $1 AND reference =
              ANY($2::text[]) ORDER BY id FOR UPDATE`,
            [actor.accountId, refs],
            transaction,
          );
          const byRef = new Map(found.map((l) => [l.reference, l]));
          const errors: FieldErrors = {};
          const seen = new Set<string>();
          refs.forEach((r, i) => {
            if (!byRef.has(r))
              addError(errors, `leads.${i}.reference`, `The selected leads.${i}.reference is invalid.`);
            else if (seen.has(r))
              addError(errors, `leads.${i}.reference`, `The leads.${i}.reference field has a duplicate value.`);
            seen.add(r);
          });
          if (Object.keys(errors).length) throw new ValidationError(errors);
          await applyStatusChanges(
            actor,
            transaction,
            leads.map((l, i) => {
              const row = byRef.get(refs[i])!;
              return {
                id: row.id,
                reference: row.reference,
                account_id: row.account_id,
                old: row.status,
                status: l.status,
                action_date: l.action_date ? new Date(l.action_date) : null,
              };
            }),
          );
          return { updated: leads.length };
        })
        .then((result) => {
          core.logger.info({ account_id: actor.accountId, ...result }, 'lead statuses changed');
          return result;
        });
    },

    /**
     * Dashboard edit of one lead (status, name, phone, city); a status change writes history like every entry point.
     */
    async update(actor: Actor, id: number, input: DashboardUpdateInput) {
      authorize(actor, 'update', 'lead');
      const v = validate<DashboardUpdateInput>(dashboardUpdateSchema, input);
      const lead = await findOne(actor, { id });
      authorize(actor, 'update', 'lead', lead);
      const phone_normalized = normalizePhone(v.phone);
      if (
        phone_normalized !== lead.phone_normalized &&
        (await Lead.findOne({ where: { account_id: lead.account_id, phone_normalized } }))
      ) {
        throw ValidationError.single('phone', 'The phone has already been taken.');
      }
      const cityId = v.city_id ? Number(v.city_id) : null;
      const city = cityId ? await City.findByPk(cityId) : null;
      if (cityId && !city) throw ValidationError.single('city_id', 'The selected city_id is invalid.');
      await sequelize.transaction(async (transaction) => {
        const [locked] = await select<{ status: string }>(
          'SELECT status FROM leads WHERE id = $1 FOR UPDATE',
          [lead.id],
          transaction,
        );
        await Lead.update(
          {
            full_name: v.full_name,
            phone: v.phone,
            phone_normalized,
            // Only a changed city_id rewrites the city: a form that sends the same (or no) city_id keeps a free-text
            // city.
            ...(v.city_id !== undefined && cityId !== lead.city_id
              ? { city_id: city?.id ?? null, city: city?.name ?? null }
              : {}),
            ...(v.area !== undefined ? { area: v.area || null } : {}),
            ...(v.address !== undefined ? { address: v.address || null } : {}),
          },
          { where: { id: lead.id }, transaction },
        );
        await applyStatusChanges(actor, transaction, [
          {
            id: lead.id,
            reference: lead.reference,
            account_id: lead.account_id,
            old: locked.status,
            status: v.status,
            action_date: v.action_date ? new Date(v.action_date) : null,
          },
        ]);
      });
      return this.show(actor, { id: lead.id });
    },

    /**
     * Deletes leads by reference (REST) or id (dashboard), with their products and history. Atomic: an unknown lead or
     * one with a protected status rejects the whole request and nothing is deleted.
     */
    async deleteMany(
      actor: Actor,
      body: unknown,
      by: 'references' | 'ids' = 'references',
    ): Promise<{ deleted: number }> {
      authorize(actor, 'delete', 'lead');
      const keys =
        by === 'references'
          ? validate<{ references: string[] }>(deleteBodySchema, body).references.map((r) => r.toUpperCase())
          : validate<{ ids: number[] }>(deleteIdsSchema, body).ids;
      return sequelize
        .transaction(async (transaction) => {
          const scope = accountScope(actor);
          const column = by === 'references' ? 'reference' : 'id';
          const found = await select<{ id: number; reference: string; status: string }>(
            `SELECT id, reference, status FROM leads WHERE ${column} =
              ANY($1::${by === 'references' ? 'text' : 'bigint'}[])
             ${scope.account_id ? 'AND account_id = $2' : ''} FOR UPDATE`,
            scope.account_id ? [keys, scope.account_id] : [keys],
            transaction,
          );
          const byKey = new Map(found.map((l) => [String(by === 'references' ? l.reference : l.id), l]));
          const errors: FieldErrors = {};
          keys.forEach((k, i) => {
            const lead = byKey.get(String(k));
            if (!lead) addError(errors, `${by}.${i}`, `The selected ${by}.${i} is invalid.`);
            else if (PROTECTED_LEAD_STATUSES.includes(lead.status)) {
              addError(
                errors,
                `${by}.${i}`,
                `The lead ${lead.reference} has the protected status ${lead.status} and cannot be deleted.`,
              );
            }
          });
          if (Object.keys(errors).length) throw new ValidationError(errors);
          const ids = [...new Set(found.map((l) => l.id))];
          await sequelize.query('DELETE FROM leads WHERE id = ANY($1::bigint[])', { bind: [ids], transaction });
          return { deleted: ids.length };
        })
        .then((result) => {
          core.logger.info({ account_id: actor.accountId, ...result }, 'leads deleted');
          return result;
        });
    },
  };
}

export type LeadService = ReturnType<typeof createLeadService>;
