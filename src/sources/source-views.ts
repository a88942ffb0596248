import { formSnippet } from './form-snippet.js';
import { intakeUrl } from './intake-url.js';
import type { IntakeRow, SourceRow } from './source.repository.js';
import type { IntakeView, SourceHealth, SourceView } from './source.schemas.js';

/**
 * What shows that a secret is set, without it: its last four characters when it is long enough that four leave most
 * of it unknown (a shop's secrets are 32 and more), else only the dots.
 */
export function secretHint(secret: string | null): string | null {
  if (!secret) return null;
  return secret.length >= 16 ? `••••${secret.slice(-4)}` : '••••';
}

export function sourceView(r: SourceRow, health: SourceHealth, appUrl: string): SourceView {
  return {
    id: r.id,
    account_id: r.account_id,
    kind: r.kind,
    name: r.name,
    public_key: r.public_key,
    intake_url: intakeUrl(appUrl, r.kind, r.public_key),
    snippet: r.kind === 'form' ? formSnippet(r, appUrl) : null,
    allowed_origins: r.allowed_origins,
    thank_you_url: r.thank_you_url,
    default_products: r.default_products,
    product_mapping: r.product_mapping,
    signing_secret_hint: secretHint(r.signing_secret),
    active: r.active,
    health,
    created_by: r.created_by,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

export function intakeView(r: IntakeRow): IntakeView {
  return {
    id: Number(r.id),
    source_id: r.source_id,
    received_at: new Date(r.received_at).toISOString(),
    outcome: r.outcome,
    reason: r.reason,
    lead_reference: r.lead_reference,
    external_id: r.external_id,
    origin: r.origin,
    client_ip: r.client_ip,
    attempts: r.attempts,
    payload: r.payload ?? null,
  };
}
