import crypto from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { pageWords } from '../admin/panel-form-errors.js';
import { intakeReason } from '../admin/resources/intake-reasons.js';
import type { AppContext } from '../src/app-context.js';
import { LeadSource } from '../src/sources/lead-source.model.js';

/** A form source of an account, written with the model (the sources service is another part of issue 34). */
export async function makeFormSource(
  accountId: number,
  o: {
    origins?: string[];
    thankYou?: string | null;
    products?: { sku: string; quantity: number }[];
    active?: boolean;
  } = {},
) {
  return LeadSource.create({
    account_id: accountId,
    kind: 'form',
    name: `Landing ${crypto.randomBytes(2).toString('hex')}`,
    public_key: `pk_${crypto.randomBytes(12).toString('hex')}`,
    allowed_origins: o.origins ?? [],
    thank_you_url: o.thankYou ?? null,
    default_products: o.products ?? [],
    active: o.active ?? true,
  });
}

export interface IntakeRow {
  outcome: string;
  reason: string | null;
  lead_reference: string | null;
  client_ip: string | null;
  origin: string | null;
  attempts: number;
  payload: Record<string, string> | null;
}

export function intakeOf(ctx: AppContext, sourceId: number): Promise<IntakeRow[]> {
  return ctx.db.sequelize.query<IntakeRow>(
    `SELECT outcome, reason, lead_reference, client_ip, origin, attempts, payload FROM lead_intake WHERE source_id = $1 ORDER BY id`,
    { bind: [sourceId], type: QueryTypes.SELECT },
  );
}

export interface SourceLeadRow {
  reference: string;
  account_id: number;
  status: string;
  phone: string;
  full_name: string;
  city: string | null;
  source_id: number | null;
  utm: Record<string, string> | null;
  data: { key: string; value: string }[];
  skus: string[];
}

export function leadsOf(ctx: AppContext, sourceId: number): Promise<SourceLeadRow[]> {
  return ctx.db.sequelize.query<SourceLeadRow>(
    `SELECT l.reference, l.account_id, l.status, l.phone, l.full_name, l.city, l.source_id, l.utm, l.data,
            ARRAY(SELECT p.sku FROM lead_products p WHERE p.lead_id = l.id) AS skus
       FROM leads l WHERE l.source_id = $1 ORDER BY l.id`,
    { bind: [sourceId], type: QueryTypes.SELECT },
  );
}

/** A POST to a form source's endpoint: urlencoded (a browser form) or JSON (a script), with the headers given. */
export function postForm(
  baseUrl: string,
  key: string,
  fields: Record<string, unknown> | string,
  o: { json?: boolean; headers?: Record<string, string> } = {},
) {
  const body =
    typeof fields === 'string'
      ? fields
      : o.json
        ? JSON.stringify(fields)
        : new URLSearchParams(fields as Record<string, string>).toString();
  return fetch(`${baseUrl}/api/web/1.0/intake/forms/${key}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': o.json ? 'application/json' : 'application/x-www-form-urlencoded',
      accept: 'application/json',
      ...o.headers,
    },
    body,
  });
}

/**
 * Every reason the intake log holds for `accountIds`, as the panel words it in French and Arabic
 * (admin/resources/intake-reasons.ts): each must be worded, not the logged English (at least `min` reasons seen).
 */
export async function expectReasonsWorded(ctx: AppContext, accountIds: number[], min: number): Promise<void> {
  const [rows] = await ctx.db.sequelize.query(
    'SELECT DISTINCT reason FROM lead_intake WHERE account_id = ANY($1::int[]) AND reason IS NOT NULL',
    { bind: [accountIds] },
  );
  const reasons = (rows as { reason: string }[]).map((r) => r.reason);
  expect(reasons.length, 'reasons logged').to.be.at.least(min);
  for (const language of ['fr', 'ar'])
    for (const reason of reasons) {
      const worded = intakeReason(reason, pageWords(language));
      expect(worded, `${reason} in ${language}`).to.not.equal(reason).and.not.include('{{');
    }
}
