import Joi from 'joi';
import { productLines, type ProductLineInput } from '../leads/lead.schemas.js';
import { pageKeys } from '../pagination.js';
import {
  INTAKE_OUTCOMES,
  SOURCE_KINDS,
  type IntakeOutcome,
  type SourceKind,
  type SourceLine,
} from './lead-source.model.js';

const ID_MAX = 2_147_483_647;
const id = () => Joi.number().integer().positive().max(ID_MAX);

/** Kinds that verify a shop's signature and so need its secret. */
export const SIGNED_KINDS: readonly SourceKind[] = ['shopify', 'woocommerce'];
/** The most allowed origins and mapping entries a source keeps: a page or a shop has a handful, not thousands. */
export const LIMITS = { origins: 20, mapping: 500, products: 20 } as const;

/**
 * An origin as browsers send it in `Origin`: `scheme://host[:port]`, http or https, nothing after the host (no path,
 * query, user). Stored in the browser's form (lower-case host, default port dropped) so the form endpoint compares
 * strings.
 */
const origin = Joi.string()
  .trim()
  .max(255)
  .custom((value: string, helpers) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return helpers.error('origin.invalid');
    }
    // after the scheme only a host and a port: no user, path, query or fragment
    const rest = value.replace(/^[a-z]+:\/\//i, '');
    if (rest === value || /[/?#@\\]/.test(rest.replace(/\/$/, '')) || !['http:', 'https:'].includes(url.protocol))
      return helpers.error('origin.invalid');
    return url.origin;
  })
  .messages({ 'origin.invalid': 'The {{#label}} must be an origin: http(s)://host[:port], without a path.' });

const origins = Joi.array().items(origin).max(LIMITS.origins).unique();
/**
 * A seller's thank-you page, when the form may send visitors there: an http(s) address without a user name or password
 * (a visitor's browser would be sent on with credentials it never saw); otherwise null, and the form uses its own page.
 */
export function thankYouAddress(url: string | null | undefined): string | null {
  if (!url || !/^https?:\/\//i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.username || parsed.password ? null : url;
  } catch {
    return null;
  }
}

const thankYouUrl = Joi.string()
  .trim()
  .uri({ scheme: ['http', 'https'] })
  .max(2000)
  .custom((value: string, helpers) => (thankYouAddress(value) ? value : helpers.error('thankYou.credentials')))
  .messages({ 'thankYou.credentials': 'The {{#label}} must not carry a user name or password.' })
  .allow(null);
const name = Joi.string().trim().min(1).max(100);
const secret = Joi.string().trim().min(8).max(255);
/** A shop's sku or product id → the account's sku (an active product, checked by the service). */
const mapping = Joi.object()
  .pattern(Joi.string().min(1).max(100), Joi.string().trim().min(1).max(100))
  .max(LIMITS.mapping);
const defaults = productLines(false).max(LIMITS.products);

/** A new source; an admin names the account (anybody else's comes from the actor). */
export const sourceCreateSchema = Joi.object({
  account_id: id(),
  kind: Joi.string()
    .valid(...SOURCE_KINDS)
    .required(),
  name: name.required(),
  allowed_origins: origins.default([]),
  thank_you_url: thankYouUrl,
  default_products: defaults.default([]),
  product_mapping: mapping.default({}),
  signing_secret: secret.when('kind', {
    is: Joi.valid(...SIGNED_KINDS),
    then: Joi.required(),
    otherwise: Joi.forbidden(),
  }),
  active: Joi.boolean().default(true),
});
export interface SourceCreateInput {
  account_id?: number;
  kind: SourceKind;
  name: string;
  allowed_origins: string[];
  thank_you_url?: string | null;
  default_products: ProductLineInput[];
  product_mapping: Record<string, string>;
  signing_secret?: string;
  active: boolean;
}

/** A change names only what changes; the kind and the account never change. `signing_secret` replaces the secret. */
export const sourceUpdateSchema = Joi.object({
  name,
  allowed_origins: origins,
  thank_you_url: thankYouUrl,
  default_products: defaults,
  product_mapping: mapping,
  signing_secret: secret,
  active: Joi.boolean(),
}).min(1);
export type SourceUpdateInput = Partial<Omit<SourceCreateInput, 'account_id' | 'kind'>>;

export const sourceListSchema = Joi.object({ ...pageKeys, account_id: id() });
export interface SourceListInput {
  page: number;
  per_page: number;
  account_id?: number;
}

export const intakeListSchema = Joi.object({ ...pageKeys, outcome: Joi.string().valid(...INTAKE_OUTCOMES) });
export interface IntakeListInput {
  page: number;
  per_page: number;
  outcome?: IntakeOutcome;
}

/** How a source fares: the rule is sourceHealth (src/sources/source-health.ts). */
export interface SourceHealth {
  /** `no_products`: a form that cannot price a lead (src/sources/source-health.ts). */
  state: 'ok' | 'failing' | 'no_products';
  received_24h: number;
  refused_24h: number;
}

/** A source as every answer shows it: never its secret, only whether one is set and its last characters. */
export interface SourceView {
  id: number;
  account_id: number;
  kind: SourceKind;
  name: string;
  public_key: string;
  /** The public address to paste into the form's action or the shop's webhook settings. */
  intake_url: string;
  /** A form's copy-paste HTML (src/sources/form-snippet.ts); null for a shop. */
  snippet: string | null;
  allowed_origins: string[];
  thank_you_url: string | null;
  default_products: SourceLine[];
  product_mapping: Record<string, string>;
  signing_secret_hint: string | null;
  active: boolean;
  health: SourceHealth;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** One intake log entry as answered. */
export interface IntakeView {
  id: number;
  source_id: number;
  received_at: string;
  outcome: IntakeOutcome;
  reason: string | null;
  lead_reference: string | null;
  external_id: string | null;
  origin: string | null;
  client_ip: string | null;
  /** How many submissions the entry stands for: 1, or those counted in its minute (a flood, a bad signature). */
  attempts: number;
  payload: unknown;
}
