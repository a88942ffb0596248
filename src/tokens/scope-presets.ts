import { SCOPES, type Scope } from '../actor.js';
import { ValidationError } from '../errors.js';
import { shownValue } from '../validation.js';

/**
 * The ready-made sets of scopes the panel's API key form offers (docs/admin-panel.md "API keys"); choosing one ticks
 * its scopes, which are saved as they are (the same codes the REST API checks), so a preset is never stored.
 * - readOnly: every VIEW scope, for reporting and dashboards that only read.
 * - integrator: what a shop, a landing page or a CRM connector needs: send leads (CREATE LEADS), follow what became
 *   of them and of their orders (VIEW LEADS, VIEW ORDERS), and be told of changes (MANAGE WEBHOOKS). It changes no
 *   status and deletes nothing: confirming, pushing and cancelling stay with the call centre.
 * - everything: every scope.
 */
export const SCOPE_PRESETS = {
  readOnly: SCOPES.filter((s) => s.startsWith('VIEW ')),
  integrator: ['CREATE LEADS', 'VIEW LEADS', 'VIEW ORDERS', 'MANAGE WEBHOOKS'] as Scope[],
  everything: [...SCOPES],
} satisfies Record<string, Scope[]>;
export type ScopePreset = keyof typeof SCOPE_PRESETS;

/** The presets by the names the dashboard's route takes, snake case like its fields (`readOnly` → `read_only`). */
const BY_NAME = new Map(
  (Object.keys(SCOPE_PRESETS) as ScopePreset[]).map((key) => [
    key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    key,
  ]),
);
export const PRESET_NAMES = [...BY_NAME.keys()];

/**
 * The scopes a new key asks for: `scopes` as given, or the scopes of `preset` (one of PRESET_NAMES). Both given is
 * refused naming the conflict, an unknown preset naming it and the allowed ones (422 under `preset`).
 */
export function requestedScopes(body: { preset?: unknown; scopes?: unknown }): unknown {
  const { preset, scopes } = body;
  if (preset === undefined || preset === null || preset === '') return scopes;
  if (scopes !== undefined && scopes !== null && scopes !== '')
    throw ValidationError.single('preset', 'Give either a preset or scopes, not both: the preset chooses the scopes.');
  const key = typeof preset === 'string' ? BY_NAME.get(preset) : undefined;
  if (!key)
    throw ValidationError.single(
      'preset',
      `The preset ${shownValue(preset)} is not one of: ${PRESET_NAMES.join(', ')}.`,
    );
  return [...SCOPE_PRESETS[key]];
}
