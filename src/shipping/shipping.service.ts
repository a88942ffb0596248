import crypto from 'node:crypto';
import Joi from 'joi';
import { newRowAccount } from '../chosen-account.js';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId } from '../query.js';
import { validate } from '../validation.js';
import { fromCents, money, toCents } from '../money.js';
import { checkEndpointUrl } from './carrier-client.js';
import { cityFeesOf, cityFeesSchema, setCityFees, type CityFee } from './city-fees.js';
import { MIN_RUN } from './secret-mask.js';
import type { ShippingCompany } from './shipping-company.model.js';

/** A push naming no company in an account without an active one. */
export const NO_ACTIVE_CARRIER = 'No active shipping company in this account: add one under Settings.';
/** A push naming no company in an account with several active ones. */
export const CHOOSE_CARRIER = 'This account has more than one active shipping company: choose the one to push to.';

/** A carrier's answer time when none is given (the create form shows it filled in). */
export const CARRIER_TIMEOUT_MS = 5000;

const companySchema = Joi.object({
  account_id: Joi.number().integer().positive(),
  code: Joi.string()
    .trim()
    .lowercase()
    .pattern(/^[a-z0-9][a-z0-9_-]{0,49}$/)
    .required(),
  name: Joi.string().trim().min(2).max(100).required(),
  endpoint_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(500)
    .required(),
  // no shorter: the mask of carrier answers (secret-mask.ts) would replace a short key's characters everywhere
  api_key: Joi.string().min(MIN_RUN).max(255).allow(null, ''),
  hmac_secret: Joi.string().min(16).max(255).allow(null, ''),
  timeout_ms: Joi.number().integer().min(100).max(120_000).default(CARRIER_TIMEOUT_MS),
  active: Joi.boolean().default(true),
  // the tariff (docs/cash.md): fees in the account's currency, the COD commission in percent of the cash collected
  delivery_fee: money(),
  return_fee: money(),
  cod_commission_percent: Joi.number().strict().min(0).max(100).precision(2),
  remit_within_days: Joi.number().strict().integer().min(1).max(365),
  city_fees: cityFeesSchema,
});
/** A change names only what changes: no field is required and no default (timeout, active) is filled in. */
const updateSchema = companySchema
  .fork(['code', 'name', 'endpoint_url'], (s) => s.optional())
  .prefs({ noDefaults: true });

export interface ShippingCompanyInput {
  account_id?: number;
  code: string;
  name: string;
  endpoint_url: string;
  api_key?: string | null;
  hmac_secret?: string | null;
  timeout_ms?: number;
  active?: boolean;
  delivery_fee?: number;
  return_fee?: number;
  cod_commission_percent?: number;
  remit_within_days?: number;
  city_fees?: CityFee[];
}

/** The fees of a tariff as kept: cents. */
const inCents = <T extends Partial<ShippingCompanyInput>>({ city_fees: _kept, ...v }: T) => ({
  ...v,
  ...(v.delivery_fee === undefined ? {} : { delivery_fee: toCents(v.delivery_fee) }),
  ...(v.return_fee === undefined ? {} : { return_fee: toCents(v.return_fee) }),
});

/** How far a callback's X-Timestamp may be from now, in seconds, either way. */
export const CALLBACK_WINDOW_S = 300;

/** `sha256=<hex>` HMAC of the exact bytes: the body of a push; `<timestamp>.<body>` of a callback. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signatureMatches(secret: string, body: Buffer, header: unknown): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** The API key and secret never leave the service in views. */
export function companyView(c: ShippingCompany) {
  return {
    id: c.id,
    account_id: c.account_id,
    code: c.code,
    name: c.name,
    adapter: c.adapter,
    endpoint_url: c.endpoint_url,
    timeout_ms: c.timeout_ms,
    active: c.active,
    has_api_key: !!c.api_key,
    delivery_fee: fromCents(c.delivery_fee),
    return_fee: fromCents(c.return_fee),
    cod_commission_percent: Number(c.cod_commission_percent),
    remit_within_days: c.remit_within_days,
    created_at: c.created_at.toISOString(),
  };
}

async function assertEndpoint(core: Core, url: string): Promise<void> {
  const problem = await checkEndpointUrl(url, core.config.shippingAllowPrivateUrls);
  if (problem) throw ValidationError.single('endpoint_url', problem);
}

/**
 * Adds a carrier to an account (adapter `http`: signed JSON POST). Without an HMAC secret one is generated and
 * returned this once (`hmac_secret`), for the user to give the carrier; no other answer ever carries it.
 */
async function createCompany(
  core: Core,
  actor: Actor,
  input: ShippingCompanyInput,
): Promise<ReturnType<typeof companyView> & { city_fees: CityFee[]; hmac_secret?: string }> {
  const v = validate<ShippingCompanyInput>(companySchema, input);
  await assertEndpoint(core, v.endpoint_url);
  const { ShippingCompany } = core.models;
  const account_id = await newRowAccount(core.db.sequelize, actor, v.account_id);
  authorize(actor, 'create', 'shippingCompany', { account_id });
  if (await ShippingCompany.findOne({ where: { account_id, code: v.code } }))
    throw ValidationError.single('code', 'The code has already been taken.');
  const generated = v.hmac_secret ? null : crypto.randomBytes(32).toString('base64url');
  const c = await ShippingCompany.create({
    ...inCents(v),
    account_id,
    adapter: 'http',
    api_key: v.api_key || null,
    hmac_secret: v.hmac_secret || generated,
  });
  if (v.city_fees) await setCityFees(core.db.sequelize, c, v.city_fees);
  const city_fees = await cityFeesOf(core.db.sequelize, c.id);
  return { ...companyView(c), city_fees, ...(generated ? { hmac_secret: generated } : {}) };
}

async function updateCompany(core: Core, actor: Actor, id: number, input: Partial<ShippingCompanyInput>) {
  const c = await core.models.ShippingCompany.findOne({ where: { id, ...accountScope(actor) } });
  if (!c) throw new NotFoundError();
  authorize(actor, 'update', 'shippingCompany', c);
  const v = validate<ShippingCompanyInput>(updateSchema, input);
  if (v.endpoint_url !== undefined) await assertEndpoint(core, v.endpoint_url);
  // Secrets are write-only: an empty value keeps the stored one (an API key is removed with null).
  const { hmac_secret, api_key, ...rest } = inCents(v);
  await c.update({
    ...rest,
    account_id: c.account_id,
    ...(hmac_secret ? { hmac_secret } : {}),
    ...(api_key || api_key === null ? { api_key } : {}),
  });
  if (v.city_fees) await setCityFees(core.db.sequelize, c, v.city_fees);
  return { ...companyView(c), city_fees: await cityFeesOf(core.db.sequelize, c.id) };
}

/**
 * The company a carrier callback comes from: the one named by `company` (its id, in the callback URL) with this
 * code, active, whose secret signs `<timestamp>.<body>`, with a timestamp within CALLBACK_WINDOW_S of now (a
 * captured callback cannot be replayed later). One HMAC per request, whatever the number of companies.
 */
async function verifyCallback(
  core: Core,
  code: string,
  company: unknown,
  rawBody: Buffer,
  timestamp: unknown,
  signature: unknown,
): Promise<ShippingCompany | null> {
  const id = Number(company);
  const ts = Number(timestamp);
  if (
    !isRowId(id) ||
    typeof timestamp !== 'string' ||
    !/^\d{1,12}$/.test(timestamp) ||
    Math.abs(Date.now() / 1000 - ts) > CALLBACK_WINDOW_S
  )
    return null;
  const c = await core.models.ShippingCompany.findOne({ where: { id, code: code.toLowerCase(), active: true } });
  return c && signatureMatches(c.hmac_secret, Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]), signature)
    ? c
    : null;
}

export function createShippingService(core: Core) {
  const { ShippingCompany } = core.models;

  return {
    createCompany: (actor: Actor, input: ShippingCompanyInput) => createCompany(core, actor, input),
    updateCompany: (actor: Actor, id: number, input: Partial<ShippingCompanyInput>) =>
      updateCompany(core, actor, id, input),
    verifyCallback: (code: string, company: unknown, rawBody: Buffer, timestamp: unknown, signature: unknown) =>
      verifyCallback(core, code, company, rawBody, timestamp, signature),
    async listCompanies(actor: Actor, accountId?: number) {
      authorize(actor, 'viewAny', 'shippingCompany');
      return (await ShippingCompany.findAll({ where: accountScope(actor, accountId), order: [['code', 'ASC']] })).map(
        companyView,
      );
    },

    /** The active company with this code in the account, or a 422 naming the field. */
    async findForPush(accountId: number, code: string, field = 'shipping_company'): Promise<ShippingCompany> {
      const c = await ShippingCompany.findOne({
        where: { account_id: accountId, code: code.toLowerCase(), active: true },
      });
      if (!c) throw ValidationError.single(field, `The selected ${field} is invalid.`);
      return c;
    },

    /**
     * The account's one active company, for a push that names none (the panel's): none, or more than one to choose
     * from, is a 422 under the field saying so (never a silent pick of one of them).
     */
    async onlyActive(accountId: number, field = 'shipping_company'): Promise<ShippingCompany> {
      const found = await ShippingCompany.findAll({ where: { account_id: accountId, active: true }, limit: 2 });
      if (!found.length) throw ValidationError.single(field, NO_ACTIVE_CARRIER);
      if (found.length > 1) throw ValidationError.single(field, CHOOSE_CARRIER);
      return found[0];
    },

    /** The account's active companies by name: what a push may be sent to (the panel's choice). */
    async activeCompanies(accountId: number): Promise<{ code: string; name: string }[]> {
      const rows = await ShippingCompany.findAll({
        where: { account_id: accountId, active: true },
        attributes: ['code', 'name'],
        order: [
          ['name', 'ASC'],
          ['code', 'ASC'],
        ],
      });
      return rows.map(({ code, name }) => ({ code, name }));
    },
  };
}
export type ShippingService = ReturnType<typeof createShippingService>;
