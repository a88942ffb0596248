import type { SourceHealth } from './source.schemas.js';

/** The states of a source's health, as REST, the dashboard and the panel answer them. */
export const HEALTH_STATES = ['ok', 'failing', 'no_products'] as const;

/**
 * The one "failing" rule (docs/lead-sources.md, "Intake log"), used by the panel, the REST show and the dashboard:
 * of a source's submissions in the last 24 hours, at least FAILING_MIN, more than half refused (refused or rate
 * limited). Fewer submissions say nothing (three spam bots refused are not a broken form).
 */
export const FAILING_MIN = 10;
export const HEALTH_WINDOW_HOURS = 24;

/**
 * `priceable` false (a form that cannot price a lead: no default product line and no mapping that gives an active
 * product, docs/lead-sources.md "Cannot price leads") wins over the counts: every visitor's submission without a
 * product is refused, whatever the last 24 hours say, and the cause is what the seller must mend.
 */
export function sourceHealth(received: number, refused: number, priceable = true): SourceHealth {
  const failing = received >= FAILING_MIN && refused * 2 > received;
  const state = !priceable ? 'no_products' : failing ? 'failing' : 'ok';
  return { state, received_24h: received, refused_24h: refused };
}

/** How long the intake log keeps an entry (the panel shows no older one; jobs/intake-retention.job.ts deletes it). */
export const INTAKE_KEEP_DAYS = 30;
