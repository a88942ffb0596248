import type { SourceHealth } from './source.schemas.js';

/**
 * The one "failing" rule (docs/lead-sources.md, "Intake log"), used by the panel, the REST show and the dashboard:
 * of a source's submissions in the last 24 hours, at least FAILING_MIN, more than half refused (refused or rate
 * limited). Fewer submissions say nothing (three spam bots refused are not a broken form).
 */
export const FAILING_MIN = 10;
export const HEALTH_WINDOW_HOURS = 24;

export function sourceHealth(received: number, refused: number): SourceHealth {
  const failing = received >= FAILING_MIN && refused * 2 > received;
  return { state: failing ? 'failing' : 'ok', received_24h: received, refused_24h: refused };
}

/** How long the intake log keeps an entry (the panel shows no older one; jobs/intake-retention.job.ts deletes it). */
export const INTAKE_KEEP_DAYS = 30;
