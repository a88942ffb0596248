import type { Sequelize, Transaction } from 'sequelize';
import { systemActor } from '../actor.js';
import type { Core } from '../context.js';
import {
  AppError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
  BadRequestError,
} from '../errors.js';
import type { FieldErrors } from '../errors.js';
import type { PreparedLead } from '../leads/lead.check.js';
import type { LeadService } from '../leads/lead.service.js';
import { loggedFields, readForm, type ReadForm } from './form-fields.js';
import { activeFormSource, insertedLead, type FormSource } from './form-intake.repository.js';
import { countIntake, recordIntake, recordRefusal } from './intake.repository.js';
import { isPublicKey } from './intake-url.js';

export type { FormSource };

/** One POST to a form source, as the HTTP layer read it. */
export interface FormSubmission {
  /** The parsed body (urlencoded or JSON), or undefined when it could not be read. */
  fields: unknown;
  /** Why the body could not be read (malformed JSON, too large), or null. */
  unreadable: string | null;
  /** The page's origin: the Origin header, else the Referer's origin; null when the request carries neither. */
  origin: string | null;
  clientIp: string | null;
}

export interface FormOutcome {
  reference: string;
  outcome: 'created' | 'duplicate';
}

const PATH = 'form';

/** An origin as browsers send it (`scheme://host[:port]`, lower case, no default port), or null if not one. */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether a page of `origin` may post to the source: a request without any origin is a server's or a script's, not a
 * page's, and passes (the rate limits and the honeypot still apply); a page's origin must be one the seller listed. A
 * source that lists none takes no browser posts at all (docs/lead-sources.md, "Allowed origins").
 */
export function allowsOrigin(source: FormSource, origin: string | null): boolean {
  if (origin === null) return true;
  return source.allowed_origins.some((allowed) => originOf(allowed) === origin);
}

/** The first message of a refusal, as the intake log says why. */
function reasonOf(err: AppError): string {
  if (err instanceof ValidationError) return Object.values(err.errors).flat()[0] ?? err.message;
  return err.message;
}

/** Errors keyed by the form's own field names: `form.0.phone` → `phone`, its message likewise. */
function formErrors(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  const prefix = `${PATH}.0.`;
  for (const [key, messages] of Object.entries(errors)) {
    const field = key.startsWith(prefix) ? key.slice(prefix.length) : key;
    out[field] = messages.map((m) => m.split(prefix).join(''));
  }
  return out;
}

/** The intake entry of an inserted lead: created, or duplicate when the batch insert made it one. */
async function logInserted(
  sequelize: Sequelize,
  transaction: Transaction,
  source: FormSource,
  submission: FormSubmission,
  reference: string,
): Promise<FormOutcome['outcome']> {
  const lead = await insertedLead(sequelize, transaction, source.account_id, reference);
  const outcome = lead.status === 'duplicate' ? 'duplicate' : 'created';
  await recordIntake(
    sequelize,
    {
      accountId: source.account_id,
      sourceId: source.id,
      outcome,
      reason: outcome === 'duplicate' ? 'The phone already belongs to a recent lead.' : null,
      leadId: lead.id,
      leadReference: reference,
      clientIp: submission.clientIp,
      origin: submission.origin,
      payload: loggedFields(submission.fields),
    },
    transaction,
  );
  return outcome;
}

/** The source's mapping target for a page's sku (own keys only: a sku may be called `constructor`). */
const mappedSku = (source: FormSource, sku: string): string | null => {
  const target = Object.hasOwn(source.product_mapping ?? {}, sku) ? source.product_mapping[sku] : null;
  return typeof target === 'string' ? target : null;
};

/**
 * The product lines: the form's sku (the account's own, else the source's mapping of it, as a shop line's) and
 * quantity, else the source's defaults; prices from the catalogue.
 */
async function productsOf(leads: LeadService, source: FormSource, read: ReadForm) {
  const own = read.sku?.trim() ?? null;
  const target = own === null ? null : mappedSku(source, own);
  const named = own === null ? source.default_products.map((l) => String(l.sku).trim()) : [own];
  const catalogue = await leads.activeProducts(source.account_id, target === null ? named : [...named, target]);
  const sku = own === null || catalogue.has(own) || target === null || !catalogue.has(target) ? own : target;
  const lines: { sku: string; quantity: unknown; price?: number }[] =
    sku !== null ? [{ sku, quantity: read.quantity ?? 1 }] : source.default_products;
  // an sku the catalogue does not have keeps a placeholder price, so that the sku is what gets refused
  const priced = lines.map((l) => ({ ...l, price: l.price ?? catalogue.get(String(l.sku).trim())?.price ?? 1 }));
  return { priced, catalogue };
}

export function createFormIntakeService(core: Core, deps: { leads: LeadService }) {
  const { sequelize } = core.db;
  const system = (source: FormSource) => systemActor(source.account_id);

  function log(
    source: FormSource,
    submission: FormSubmission,
    entry: { outcome: 'refused' | 'rate_limited'; reason: string },
  ) {
    const fixed = { accountId: source.account_id, sourceId: source.id, ...entry };
    const from = { clientIp: submission.clientIp, origin: submission.origin };
    // a rate-limited submission is counted (one row per address and minute), never kept whole
    if (entry.outcome === 'rate_limited') return countIntake(sequelize, { ...fixed, ...from });
    const payload = loggedFields(submission.fields);
    return recordRefusal(sequelize, { ...fixed, ...from, payload }, core.config.forms.logRefusalsPerHour);
  }

  /** Checks, prepares and inserts; throws the refusal (not yet logged). */
  async function accept(source: FormSource, submission: FormSubmission): Promise<FormOutcome> {
    if (submission.unreadable) throw new BadRequestError(submission.unreadable);
    if (!allowsOrigin(source, submission.origin)) throw new ForbiddenError('This page may not send to this form.');
    const read = readForm(submission.fields);
    if (read.honeypot) throw ValidationError.single('website', 'The website field must be empty.');
    if (Object.keys(read.errors).length) throw new ValidationError(read.errors);
    const { priced, catalogue } = await productsOf(deps.leads, source, read);
    const item = { ...read.item, data: read.item.data, products: priced };
    if (!item.data.length) delete (item as { data?: unknown }).data;
    const { prepared, errors } = await deps.leads.prepareLeads(system(source), [item], PATH, source.account_id, {
      catalogue,
    });
    if (Object.keys(errors).length) throw new ValidationError(formErrors(errors));
    return sequelize.transaction(async (transaction) => {
      const [reference] = await deps.leads.insertLeads(system(source), prepared as PreparedLead[], {
        transaction,
        accountId: source.account_id,
        origin: { sourceId: source.id, name: `Form: ${source.name}`, utm: read.utm, externalId: null },
      });
      const outcome = await logInserted(sequelize, transaction, source, submission, reference);
      return { reference, outcome };
    });
  }

  return {
    /** The active form source of a public key; an unknown, inactive or shop key is a NotFoundError (nothing logged). */
    async source(publicKey: unknown): Promise<FormSource> {
      const source = isPublicKey(publicKey) ? await activeFormSource(sequelize, publicKey) : null;
      if (!source) throw new NotFoundError();
      return source;
    },

    allowsOrigin,

    /**
     * One submission: the origin, the honeypot and the spec's field rules, then the lead through the one batch insert
     * (duplicate, uncallable and blocked phones decided there) with its intake entry in the same transaction. A refusal
     * is logged with its reason and thrown.
     */
    async submit(source: FormSource, submission: FormSubmission): Promise<FormOutcome> {
      try {
        return await accept(source, submission);
      } catch (err) {
        if (err instanceof AppError) await log(source, submission, { outcome: 'refused', reason: reasonOf(err) });
        throw err;
      }
    },

    /** Logs a submission a rate limit refused (the limiter's message says which). */
    async rateLimited(source: FormSource, submission: FormSubmission, err: RateLimitedError): Promise<void> {
      await log(source, submission, { outcome: 'rate_limited', reason: err.message });
    },
  };
}

export type FormIntakeService = ReturnType<typeof createFormIntakeService>;
